/**
 * `anyOf`: one verified reader made of several, for an API that accepts tokens from more than
 * one issuer (its own token endpoint and an external authorization server, say). See
 * docs/contract.md#verified-readers and docs/contract.md#openapi.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { getOAuth2Error, isForeignTokenError } from '../errors.js';
import { SECURITY, type OAuth2SecurityScheme, type SecurityDeclaration } from '../security-declaration.js';
import type { Principal, TokenVerifier } from './principal.js';
import { READER_PARTS, type ReaderParts } from './definition.js';
import type { ScopeExpansion } from './security-state.js';
import { createSecurityReader, type SecurityReader } from './security-reader.js';
import type { Joined } from './types.js';
import type { TypeError } from '../type-error.js';
import type { ReaderDPoPOptions } from '../dpop/reader-dpop.js';

/** What `anyOf` reads of a reader (structurally: any reader of this library). */
interface AnyReader {
  readonly schemeName: string;
  readonly securityScheme: OAuth2SecurityScheme;
  readonly autoError: boolean;
  makeNotAuthenticatedError(): TRPCError;
  makeInvalidTokenError?(description: string): TRPCError;
  makeInsufficientScopeError?(scopes: readonly string[]): TRPCError;
  readonly '~types'?: { readonly key: string; readonly scope: string; readonly principal: Principal; readonly needs: object };
}

/** Each reader as it is, or a message where one has no `verify` (its principal is `never`). */
type VerifiedReaders<TReaders extends readonly AnyReader[]> = {
  [K in keyof TReaders]: [PrincipalOf<TReaders[K]>] extends [never]
    ? TypeError<'anyOf combines verified readers only: give this reader `verify`'>
    : TReaders[K];
};

type ScopeOf<TReader> = TReader extends { readonly '~types'?: { readonly scope: infer $Scope } } ? $Scope : never;
type KeyOf<TReader> = TReader extends { readonly '~types'?: { readonly key: infer $Key extends string } } ? $Key : never;
type PrincipalOf<TReader> = TReader extends { readonly '~types'?: { readonly principal: infer $Principal extends Principal } } ? $Principal : never;
type NeedsOf<TReader> = TReader extends { readonly '~types'?: { readonly needs: infer $Needs extends object } } ? $Needs : object;

/** The ctx every reader of the tuple needs: each verifier may be asked, so the group needs them all. */
type GroupNeeds<TReaders extends readonly unknown[]> = TReaders extends readonly [infer $Head, ...infer $Rest] ? Joined<NeedsOf<$Head>, GroupNeeds<$Rest>> : object;

/** The scope names every reader of the tuple declares: a scope required of the group is one each scheme knows. */
type CommonScopes<TReaders extends readonly unknown[]> = TReaders extends readonly [infer $Head, ...infer $Rest]
  ? ScopeOf<$Head> & CommonScopes<$Rest>
  : string;

/** Whether one of `TReaders` is sure to refuse unauthenticated requests (its `autoError` is `true`, not `boolean`). */
type SomeRefuses<TReaders extends readonly AnyReader[]> = TReaders extends readonly [infer First extends AnyReader, ...infer Rest extends readonly AnyReader[]]
  ? [First['autoError']] extends [true]
    ? true
    : SomeRefuses<Rest>
  : false;

/**
 * As at run time, `autoError` is whether some reader refuses unauthenticated requests: `true` when
 * one surely does, `false` when every reader lets them through, and `boolean` when that is known
 * only at run time (a reader given `autoError` as a `boolean`), whose ctx may then carry `null`.
 */
type AutoErrorOf<TReaders extends readonly AnyReader[]> =
  SomeRefuses<TReaders> extends true ? true : [Exclude<TReaders[number]['autoError'], false>] extends [never] ? false : boolean;

/**
 * The reader `anyOf(...readers)` returns: the readers' ctx key, the scopes they all declare, any
 * of their principals, and the ctx every one of them needs.
 *
 * @example
 * ```ts
 * type Either = AnyOfReader<[typeof passwordAuth, typeof codeAuth]>; // SecurityReader<'token', 'me' | 'items', true, PasswordPrincipal | CodePrincipal>
 * ```
 */
export type AnyOfReader<TReaders extends readonly AnyReader[]> = SecurityReader<
  KeyOf<TReaders[0]>,
  CommonScopes<TReaders>,
  AutoErrorOf<TReaders>,
  PrincipalOf<TReaders[number]>,
  false,
  GroupNeeds<TReaders>
>;

/** A principal granted by a reader without a scope hierarchy, or by readers with different ones. */
const NO_HIERARCHY = Symbol('no hierarchy');

function partsOf(reader: unknown, index: number): ReaderParts {
  const parts = (reader as { [READER_PARTS]?: ReaderParts } | null)?.[READER_PARTS];
  if (parts === undefined) throw new TypeError(`anyOf: argument ${index + 1} is not a reader of this library`);
  if (parts.verify === undefined) {
    throw new TypeError(`anyOf: the reader ${JSON.stringify((reader as AnyReader).schemeName)} has no \`verify\`: anyOf tries each reader's verifier`);
  }
  return parts;
}

/**
 * The group's public URL: the `origin` and `pathPrefix` its readers set. Readers that set none take
 * them; two that set different ones are refused, since the group builds one URL for every verifier
 * and DPoP proof (an origin from ctx is one function, the same for every reader that names it).
 */
function publicUrlOf(readers: readonly AnyReader[], parts: readonly ReaderParts[]): { origin?: ReaderParts['origin']; pathPrefix: string } {
  const origins = new Set(parts.flatMap((part) => (part.origin === undefined ? [] : [part.origin])));
  const prefixes = new Set(parts.flatMap((part) => (part.pathPrefix === '' ? [] : [part.pathPrefix])));
  if (origins.size > 1 || prefixes.size > 1) {
    const names = readers.map((reader) => reader.schemeName).join(', ');
    throw new TypeError(`anyOf: the readers ${names} do not agree on their public URL: give every reader that sets \`origin\` or \`pathPrefix\` the same ones`);
  }
  const [origin] = origins;
  const [pathPrefix = ''] = prefixes;
  return origin === undefined ? { pathPrefix } : { origin, pathPrefix };
}

/**
 * The group's DPoP options: the first reader's, when every reader accepts DPoP in the same mode
 * with the same proof checker. The group runs one consultation (proof, then each verifier, then
 * the binding); readers that disagree would each have answered a request differently, and a
 * reader without DPoP refuses the bound tokens a DPoP reader accepts.
 */
function dpopOf(readers: readonly AnyReader[], parts: readonly ReaderParts[]): { dpop?: ReaderDPoPOptions } {
  const [first] = parts;
  if (parts.every((part) => part.dpop === undefined)) return {};
  const agree = parts.every((part) => part.dpop !== undefined && part.dpop.mode === first!.dpop?.mode && part.dpop.proofs === first!.dpop?.proofs);
  if (!agree) {
    const names = readers.map((reader) => reader.schemeName).join(', ');
    throw new TypeError(`anyOf: the readers ${names} do not agree on DPoP: give every reader the same \`dpop\` mode and \`proofs\`, or none of them \`dpop\``);
  }
  return { dpop: first!.dpop! };
}

/**
 * The schemes the group accepts besides its first reader's: every other reader's, and every
 * scheme a nested group accepts (`anyOf(anyOf(x, y), z)` accepts `y` tokens too), each once, in
 * the order the verifiers are tried. The document lists each as an alternative requirement
 * (docs/contract.md#openapi).
 */
function alternativesOf(readers: readonly AnyReader[]): SecurityDeclaration['alternatives'] {
  const seen = new Set([readers[0]!.schemeName]);
  const alternatives: { readonly schemeName: string; readonly scheme: OAuth2SecurityScheme }[] = [];
  readers.forEach((reader, index) => {
    const own = index === 0 ? [] : [{ schemeName: reader.schemeName, scheme: reader.securityScheme }];
    const nested = (reader as { readonly [SECURITY]?: SecurityDeclaration })[SECURITY]?.alternatives ?? [];
    for (const { schemeName, scheme } of [...own, ...nested]) {
      if (seen.has(schemeName)) continue;
      seen.add(schemeName);
      alternatives.push(Object.freeze({ schemeName, scheme }));
    }
  });
  return Object.freeze(alternatives);
}

/** The shortest `recheckInterval` of the readers, if any has one. */
function recheckIntervalOf(parts: readonly ReaderParts[]): { recheckInterval?: number } {
  const intervals = parts.flatMap((part) => (part.streams.recheckInterval === undefined ? [] : [part.streams.recheckInterval]));
  return intervals.length === 0 ? {} : { recheckInterval: Math.min(...intervals) };
}

/**
 * One verified reader that accepts a credential any of `readers` accepts: it reads the
 * `Authorization` header as the first reader does, tries each reader's `verify` in order, and
 * puts the first principal granted on `ctx.principal` (and the token on `ctx.token`). Scopes are
 * required through it (`group.requireScopes(…)`, `group.withScopes(…)`) and enforced on that
 * principal whatever the order of the chain, as for any verified reader. In the OpenAPI document
 * each reader's scheme (a nested group's too) is an alternative requirement with the same scopes.
 *
 * When every verifier refuses, the answer is the first reader's refusal (401 `invalid_token`),
 * passing over one that says the token is another issuer's (`foreignTokenError`) for one of a
 * reader that refused it for another cause;
 * when none accepts and one could not answer (its key set is down: 503), that fault, since the
 * credential may be good. It is a 401 with the first reader's challenge when there is no
 * credential, and optional (`null`) only when every reader has `autoError: false`. A token the
 * first reader's `peek` remembers (a `cacheVerifier`'s) is answered at once, as through that reader.
 *
 * @example
 * ```ts
 * const password = oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify: ownTokens });
 * const code = oauth2AuthorizationCodeBearer({ authorizationUrl, tokenUrl, scopes, verify: jwtVerifier({ jwksUrl, algorithms: ['ES256'], issuer, audience }) });
 * const either = anyOf(password, code);
 * const items = t.procedure.use(either).use(either.requireScopes('items')).query(({ ctx }) => ctx.principal);
 * ```
 */
export function anyOf<const $Readers extends readonly [AnyReader, AnyReader, ...AnyReader[]]>(
  ...readers: $Readers & VerifiedReaders<$Readers>
): AnyOfReader<$Readers> {
  if (readers.length < 2) throw new TypeError('anyOf needs at least two readers');
  const parts = readers.map(partsOf);
  const [first, ...others] = parts as [ReaderParts, ...ReaderParts[]];
  if (parts.some((part) => part.definition.key !== first.definition.key)) {
    throw new TypeError('anyOf: every reader must put the same ctx key (bearer readers put `token`, `oauth2()` puts `authorization`)');
  }
  const names = readers.map((reader) => reader.schemeName);
  if (new Set(names).size !== names.length) throw new TypeError(`anyOf: two readers share a scheme name (${names.join(', ')}): give each its own schemeName`);
  // Which reader granted each principal: its scope hierarchy, and no other reader's, applies to it.
  // A principal object two readers both granted (verifiers sharing a cache of users, say) gets no
  // hierarchy at all: which reader granted it in a given request is not known here, and a grant
  // must never be read wider than the reader that made it reads it.
  const grantedBy = new WeakMap<Principal, ScopeExpansion | typeof NO_HIERARCHY>();
  const hierarchies = parts.some((part) => part.expand !== undefined);
  const granted = (principal: Principal, expand: ScopeExpansion | undefined) => {
    if (!hierarchies || typeof principal !== 'object' || principal === null) return;
    const own = expand ?? NO_HIERARCHY;
    const known = grantedBy.get(principal);
    grantedBy.set(principal, known === undefined || known === own ? own : NO_HIERARCHY);
  };
  const verify: TokenVerifier<Principal> = async (token, options) => {
    let refusal: unknown;
    // A refusal that says the token is another issuer's (`foreignTokenError`) gives way to one of
    // a reader that refused it for another cause: the token was meant for that reader, whose
    // refusal (its audience, its expiry) tells the client what is wrong.
    let foreign: unknown;
    let fault: unknown;
    for (const part of parts) {
      try {
        const principal = await part.verify!(token, options);
        granted(principal, part.expand);
        return principal;
      } catch (error) {
        if (getOAuth2Error(error)?.code !== 'ERR_INVALID_TOKEN') fault ??= error;
        else if (isForeignTokenError(error)) foreign ??= error;
        else refusal ??= error;
      }
    }
    throw fault ?? refusal ?? foreign;
  };
  // The first verifier is always asked first, so what its `peek` holds is what `verify` answers:
  // the group offers that `peek`, and a remembered token of the first reader skips the promise.
  // A later reader's `peek` is no answer of the group's: an earlier reader, asked first, might
  // accept the same token and grant something else (its `undefined` does not say it refuses).
  const firstPeek = first.verify!.peek;
  if (firstPeek !== undefined) {
    const peek = (token: string) => {
      const principal = firstPeek(token);
      if (principal !== undefined) granted(principal, first.expand);
      return principal;
    };
    Object.defineProperty(verify, 'peek', { value: peek, enumerable: true });
  }
  // What the group advertises it accepts: every audience (and issuer) its readers' verifiers
  // accept, when each names them; a part that names none may accept any.
  for (const member of ['audience', 'issuer'] as const) {
    const named = parts.map((part) => (part.verify as { audience?: unknown; issuer?: unknown })[member]);
    if (named.every((values) => Array.isArray(values))) {
      Object.defineProperty(verify, member, { value: Object.freeze([...new Set((named as string[][]).flat())]), enumerable: true });
    }
  }
  const head = readers[0];
  const declaredScopes = first.definition.declaredScopes.filter((scope) => others.every((part) => part.definition.declaredScopes.includes(scope)));
  return createSecurityReader(
    { ...first.definition, scheme: head.securityScheme, defaultSchemeName: head.schemeName, declaredScopes },
    {
      autoError: readers.some((reader) => reader.autoError),
      getHeaders: first.getHeaders,
      ...publicUrlOf(readers, parts),
      // The first reader's challenges, made from its options again rather than taken from its
      // factories: a factory the reader made (Bearer's insufficient_scope) would stand for one the
      // application gave, and the group's DPoP parts would lose the metadata and their own scheme.
      ...first.challenges,
      verify,
      // Where the credential may be and how streams end are the first reader's; a stream is
      // re-checked as often as the most watchful reader asks.
      allowCredentialInUrl: first.streams.allowCredentialInUrl,
      makeCredentialInUrlError: first.streams.makeCredentialInUrlError,
      makeTokenExpiredError: first.streams.makeTokenExpiredError,
      ...recheckIntervalOf(parts),
      ...dpopOf(readers, parts),
    },
    {
      alternatives: alternativesOf(readers),
      ...(hierarchies
        ? {
            expand: (scopes, principal) => {
              const expand = grantedBy.get(principal);
              return expand === undefined || expand === NO_HIERARCHY ? scopes : expand(scopes, principal);
            },
          }
        : {}),
    },
  ) as never;
}
