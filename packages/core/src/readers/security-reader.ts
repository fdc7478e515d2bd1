/**
 * The reader factory every reader is built on: a reader is a small declarative definition (the
 * ctx key, the scheme, how the `Authorization` value is read, the default error) plus the user's
 * options, assembled into three {@link securityStep}s (the reader, `requireScopes`, `withScopes`).
 * See docs/contract.md#reading-the-authorization-header and docs/contract.md#verified-readers.
 * @module
 */
import { initTRPC } from '@trpc/server';
import { SECURITY } from '../security-declaration.js';
import { accumulateScopes, assertScopeName } from '../security-scopes.js';
import type { Principal } from './principal.js';
import { securityStep } from './security-step.js';
import { READER_PARTS, type ReaderAssembly, type ReaderDefinition, type ReaderParts } from './definition.js';
import { readerConsultation } from './reader-consultation.js';
import { readerDeclaration } from './reader-declaration.js';
import { readerSettings } from './reader-settings.js';
import type { NeededContext, SecurityReader, SecurityReaderOptions } from './types.js';

export type { SecurityReader, SecurityReaderOptions, ReaderContext, ReaderWithScopes, NeededContext } from './types.js';

/** The message of a scopes step on a reader that nothing would check. */
const UNCHECKED_SCOPES =
  'has no `verify`, so nothing would check these scopes: give the reader `verify`, or create it with `manualScopeCheck: true` and check the grant with assertGrantedScopes';

/** Assembles a reader from its definition and the user's options. */
export function createSecurityReader<
  $Key extends string,
  $Scope extends string,
  $AutoError extends boolean,
  $Principal extends Principal = never,
  $Manual extends boolean = false,
  $Ctx = any,
  $OriginCtx = any,
  $HeadersCtx = any,
>(
  definition: ReaderDefinition<$Key>,
  options: SecurityReaderOptions<$AutoError, $Principal, $Manual, $Ctx, $OriginCtx, $HeadersCtx>,
  assembly: ReaderAssembly = {},
): SecurityReader<$Key, $Scope, $AutoError, $Principal, $Manual, NeededContext<$Ctx, $OriginCtx, $HeadersCtx>> {
  const own = readerSettings(definition, options as SecurityReaderOptions<boolean, Principal, boolean>);
  const settings = assembly.expand === undefined ? own : { ...own, expand: assembly.expand };
  const { autoError, schemeName, verify, credentialSource, makeNotAuthenticatedError } = settings;
  const verified = verify !== undefined;
  const { scheme, declare } = readerDeclaration(settings, options.description, assembly);
  const core = readerConsultation(settings);
  const checkedScopes = (scopes: string[], method: string) => {
    if (!verified && !settings.manualScopeCheck) throw new TypeError(`${method}: the reader ${JSON.stringify(schemeName)} ${UNCHECKED_SCOPES}`);
    if (scopes.length === 0) throw new TypeError(`${method} needs at least one scope`);
    for (const scope of scopes) assertScopeName(scope, definition.declaredScopes);
    return Object.freeze([...scopes]);
  };

  const reader = securityStep(core, { putsCredential: true });
  let procedure: unknown;
  return Object.assign(reader, {
    schemeName,
    securityScheme: scheme,
    autoError,
    verified,
    makeNotAuthenticatedError,
    makeInvalidTokenError: settings.makeInvalidTokenError,
    makeInsufficientScopeError: settings.makeInsufficientScopeError,
    requireScopes(...scopes: string[]) {
      const declared = checkedScopes(scopes, 'requireScopes');
      const step = securityStep(core, { putsCredential: false, accumulate: accumulateScopes(declared) });
      // A verified reader's requireScopes consults the reader, so it answers the reader's 401 too (and documents it).
      return Object.assign(step, verified ? { makeNotAuthenticatedError } : {}, declare(declared));
    },
    withScopes(...scopes: string[]) {
      const declared = checkedScopes(scopes, 'withScopes');
      // One tRPC step instead of two: each `.use()` step costs more than the reading itself.
      const step = securityStep(core, { putsCredential: true, accumulate: accumulateScopes(declared) });
      return Object.assign(step, { makeNotAuthenticatedError }, declare(declared, !autoError));
    },
    get procedure() {
      // Built on first use: most applications `.use()` the reader and never need a builder.
      return (procedure ??= initTRPC.create().procedure.use(reader as never));
    },
    ...declare(Object.freeze([]), !autoError),
    [READER_PARTS]: Object.freeze({
      definition,
      verify,
      getHeaders: settings.getHeaders,
      origin: settings.origin,
      pathPrefix: settings.pathPrefix,
      expand: settings.expand,
      dpop: settings.dpopOptions,
      streams: {
        allowCredentialInUrl: credentialSource.allowCredentialInUrl,
        makeCredentialInUrlError: credentialSource.makeCredentialInUrlError,
        recheckInterval: settings.recheckInterval,
        makeTokenExpiredError: settings.makeTokenExpiredError,
      },
      challenges: challengeOptionsOf(options),
    }) satisfies ReaderParts,
  }) as never;
}

/** The challenge options a reader was given, each only when given. */
function challengeOptionsOf(options: SecurityReaderOptions<boolean, Principal, boolean>): ReaderParts['challenges'] {
  const { resourceMetadata, makeNotAuthenticatedError, makeInvalidTokenError, makeInsufficientScopeError } = options;
  return {
    ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
    ...(makeNotAuthenticatedError === undefined ? {} : { makeNotAuthenticatedError }),
    ...(makeInvalidTokenError === undefined ? {} : { makeInvalidTokenError }),
    ...(makeInsufficientScopeError === undefined ? {} : { makeInsufficientScopeError }),
  };
}
