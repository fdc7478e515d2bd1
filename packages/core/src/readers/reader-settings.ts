/**
 * A reader's options, resolved once when the reader is created: the defaults filled in and every
 * option checked, so that a wrong one fails at start-up rather than on a request.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import type { CredentialSource } from '../credential-source.js';
import { credentialInUrlError, insufficientScopeError, invalidTokenError } from '../errors.js';
import { headersFromContext, type HeadersLike } from '../headers.js';
import { scopeExpansion } from '../scope-hierarchy.js';
import { assertScopeName, type GrantedScopes } from '../security-scopes.js';
import { readerDPoP, type ReaderDPoP, type ReaderDPoPOptions } from '../dpop/reader-dpop.js';
import type { Principal, TokenVerifier } from './principal.js';
import type { ReaderDefinition } from './definition.js';
import type { SecurityReaderOptions } from './types.js';
import type { ReaderOrigin } from './verify-request.js';
import { pathPrefixOf, publicOrigin } from '../request-url.js';
import type { ScopeExpansion } from './security-state.js';

/** What a reader works with: its definition's kind of reading, with the user's options resolved. */
export interface ReaderSettings {
  readonly definition: ReaderDefinition<string>;
  readonly autoError: boolean;
  readonly getHeaders: (ctx: any) => HeadersLike | null | undefined;
  /** The public origin, normalized (`new URL(origin).origin`), or a function of ctx giving it per request. */
  readonly origin: ReaderOrigin;
  /** The path a proxy in front strips off, normalized (`''` for none). */
  readonly pathPrefix: string;
  /** The DPoP options as given, for `anyOf` to compare (readers it combines must agree on them). */
  readonly dpopOptions: ReaderDPoPOptions | undefined;
  readonly verify: TokenVerifier<Principal> | undefined;
  readonly dpop: ReaderDPoP | undefined;
  readonly makeNotAuthenticatedError: () => TRPCError;
  readonly makeInvalidTokenError: (description: string) => TRPCError;
  readonly makeInsufficientScopeError: (scopes: readonly string[]) => TRPCError;
  /** The application's; absent, a stream ends with the reader's `invalid_token` in its token's scheme. */
  readonly makeTokenExpiredError: (() => TRPCError) | undefined;
  readonly manualScopeCheck: boolean;
  readonly recheckInterval: number | undefined;
  readonly credentialSource: CredentialSource;
  readonly schemeName: string;
  /** The scope hierarchy (`implies`): a grant with the scopes it implies. */
  readonly expand: ScopeExpansion | undefined;
}

/** Resolves and checks a reader's options. */
export function readerSettings(definition: ReaderDefinition<string>, options: SecurityReaderOptions<boolean, Principal, boolean>): ReaderSettings {
  // Anything but a function of ctx is read as the origin's text (a `URL` as its href), and checked.
  const origin = typeof options.origin === 'function' || options.origin === undefined ? options.origin : publicOrigin(String(options.origin), 'origin');
  const pathPrefix = pathPrefixOf(options.pathPrefix, 'pathPrefix');
  // The default factories point every challenge at the metadata, when the reader knows where it is.
  const challenge = options.resourceMetadata === undefined ? undefined : { resourceMetadata: options.resourceMetadata };
  if (challenge !== undefined) invalidTokenError(undefined, challenge); // a URL no challenge can carry throws now, not per request
  const makeInvalidTokenError = options.makeInvalidTokenError ?? ((description: string) => invalidTokenError(description, challenge));
  const makeInsufficientScopeError = options.makeInsufficientScopeError ?? ((scopes: readonly string[]) => insufficientScopeError(scopes, challenge));
  const verify = options.verify as TokenVerifier<Principal> | undefined;
  if (verify !== undefined && typeof verify !== 'function') throw new TypeError('verify must be a function');
  const dpopOptions = (options as { dpop?: ReaderDPoPOptions }).dpop;
  // The DPoP challenges name the metadata too (RFC 9728 §5.1 allows it in any scheme's).
  const dpop = dpopOptions === undefined ? undefined : readerDPoP(dpopOptions, { ...challenge, makeInsufficientScopeError: options.makeInsufficientScopeError });
  if (dpop !== undefined && verify === undefined) throw new TypeError("dpop needs `verify`: a token's binding (cnf.jkt) is read from its principal");
  if (dpop !== undefined && origin === undefined) {
    throw new TypeError('dpop needs `origin`: a proof names the URL the client used, which the Host header alone does not say');
  }
  const { recheckInterval } = options;
  // At most the longest delay a timer keeps (2³¹ − 1 ms): Node runs a longer one after 1 ms, which
  // would ask the verifier without pause.
  if (recheckInterval !== undefined && !(Number.isSafeInteger(recheckInterval) && recheckInterval > 0 && recheckInterval <= 2_147_483_647)) {
    throw new TypeError('recheckInterval must be a positive whole number of milliseconds, at most 2147483647 (about 24.8 days)');
  }
  for (const scope of definition.declaredScopes) assertScopeName(scope, undefined);
  const getHeaders = options.getHeaders ?? headersFromContext;
  return {
    definition,
    autoError: options.autoError ?? true,
    getHeaders,
    origin,
    pathPrefix,
    verify,
    dpop,
    dpopOptions,
    makeNotAuthenticatedError: options.makeNotAuthenticatedError ?? dpop?.notAuthenticated ?? (() => definition.defaultNotAuthenticatedError(challenge)),
    makeInvalidTokenError,
    // A DPoP-only resource answers a missing scope in the DPoP scheme: Bearer names a scheme it refuses.
    makeInsufficientScopeError: dpop?.mode === 'required' ? dpop.insufficientScope : makeInsufficientScopeError,
    // Absent: a stream ends with the reader's own `invalid_token`, in the scheme its token came in
    // and with its challenge options (the metadata URL), as a verifier's refusal of an expired token is.
    makeTokenExpiredError: options.makeTokenExpiredError,
    manualScopeCheck: options.manualScopeCheck === true,
    recheckInterval,
    credentialSource: {
      getHeaders,
      allowCredentialInUrl: options.allowCredentialInUrl === true,
      // The default names the metadata and the schemes the reader accepts, as its other challenges do.
      makeCredentialInUrlError: options.makeCredentialInUrlError ?? dpop?.credentialInUrl ?? (() => credentialInUrlError(challenge)),
    },
    schemeName: options.schemeName ?? definition.defaultSchemeName,
    expand: scopeExpansion(options.implies, definition.declaredScopes),
  };
}
