/**
 * FastAPI's `SecurityScopes`: the scopes a chain accumulates, the middleware that adds them, the
 * check of a scope name against RFC 6749's grammar and the check of the scopes a credential
 * grants. A chain's scopes are memoized per chain, so after the first request adding scopes
 * costs one WeakMap lookup. See docs/contract.md#securityscopes.
 * @module
 */
import type { TRPCError, TRPCMiddlewareFunction } from '@trpc/server';
import { insufficientScopeError } from './errors.js';
import { SECURITY, type SecurityDeclaration } from './security-declaration.js';
import { isScopeToken } from './scope-grammar.js';
import { READER_PARTS, type ReaderParts } from './readers/definition.js';

/**
 * The scopes every security middleware in a procedure's chain has required so far, in
 * declaration order and without duplicates (FastAPI's `SecurityScopes`).
 *
 * @typeParam TScope - the union of scope names accumulated by the chain.
 * @example
 * ```ts
 * const items = authed.use(auth.requireScopes('items')).query(({ ctx }) => {
 *   ctx.securityScopes.scopes;   // readonly ('me' | 'items')[]
 *   ctx.securityScopes.scopeStr; // 'me items'
 * });
 * ```
 */
export interface SecurityScopes<TScope extends string = string> {
  readonly scopes: readonly TScope[];
  /** `scopes` joined by one space, ready for a `scope` parameter or a `WWW-Authenticate` challenge. */
  readonly scopeStr: string;
}

/**
 * The scopes a credential grants, as {@link assertGrantedScopes} takes them (a principal's
 * `scopes` is one).
 */
export type GrantedScopes = ReadonlySet<string> | readonly string[];

/** What a tRPC middleware resolves to when it adds `TContextOut` to the context. */
export type MiddlewareResult<TContextOut> = Awaited<ReturnType<TRPCMiddlewareFunction<any, any, any, TContextOut, any>>>;

/**
 * The part of tRPC's middleware options the security middlewares use. `TCtx` is the context of
 * the procedure they are `.use()`d on, which is how scopes accumulate in the types.
 */
export interface MiddlewareOptions<TCtx> {
  ctx: TCtx;
  /** tRPC's signal of the call; a verified reader passes it to its verifier. */
  signal?: AbortSignal | undefined;
  /** The kind of call and the procedure's path, as tRPC gives them (for the request a verifier sees). */
  type?: 'query' | 'mutation' | 'subscription';
  path?: string;
  /** tRPC's reader of the call's input: one per call, the same for every step of it (a call's identity). */
  getRawInput?: () => Promise<unknown>;
  next: (opts: { ctx: object }) => Promise<MiddlewareResult<any>>;
}

/** The scope union a context has accumulated so far (`never` when none). */
export type ScopesOf<TCtx> = TCtx extends { securityScopes: SecurityScopes<infer $Scope> } ? $Scope : never;

/**
 * The scopes on ctx after a step that requires `TRequired`, on a procedure whose ctx is `TCtx`:
 * the union the chain accumulated before it and `TRequired`. A step made outside the `.use()` call
 * it is given to (`const needMe = auth.requireScopes('me')`, reused) has no ctx inferred
 * (`TCtx` is `unknown`): it cannot see what the steps before it required, and tRPC replaces the
 * ctx's `securityScopes` with what the step says, so its scopes are any names (`string`), never
 * only its own, which at run time they are not (docs/contract.md#securityscopes).
 */
export type AccumulatedScopes<TCtx, TRequired extends string> = unknown extends TCtx ? string : ScopesOf<TCtx> | TRequired;

/**
 * What a middleware's options must carry besides its own ctx when its reader needs some ctx of
 * the procedure (a verifier's declared `VerifyOptions<TNeeds>`); `unknown`, which adds nothing,
 * when it needs none.
 */
export type NeedingContext<TNeeds> = object extends TNeeds ? unknown : { ctx: TNeeds };

/**
 * A middleware that adds `TRequired` to `ctx.securityScopes`. `TCtx` is the context of the
 * procedure it is used on (inferred from the `.use()` call), so chained scopes accumulate as a union.
 * `TNeeds` is the ctx its reader needs there (`object`: none).
 */
export interface ScopesMiddleware<TRequired extends string, TCtx = unknown, TNeeds extends object = object> {
  (opts: MiddlewareOptions<TCtx> & NeedingContext<TNeeds>): Promise<MiddlewareResult<{ securityScopes: SecurityScopes<AccumulatedScopes<TCtx, TRequired>> }>>;
  readonly [SECURITY]: SecurityDeclaration;
}

/** The scopes of a chain that has required none. */
export const NO_SCOPES: SecurityScopes<never> = Object.freeze({ scopes: Object.freeze([]), scopeStr: '' });

/**
 * Returns a function that adds `required` to a chain's scopes, keeping order and dropping
 * duplicates. A chain's scopes are the same object on every request, so each result is
 * remembered per input object: after the first request this costs one WeakMap lookup.
 */
export function accumulateScopes(required: readonly string[]): (previous: SecurityScopes | undefined) => SecurityScopes {
  const memo = new WeakMap<SecurityScopes, SecurityScopes>();
  return (previous = NO_SCOPES) => {
    let next = memo.get(previous);
    if (next === undefined) {
      const scopes = Object.freeze([...new Set([...previous.scopes, ...required])]);
      next = scopes.length === previous.scopes.length ? previous : Object.freeze({ scopes, scopeStr: scopes.join(' ') });
      memo.set(previous, next);
    }
    return next;
  };
}

/**
 * Refuses a scope name that breaks RFC 6749's scope-token grammar, or that the reader did not
 * declare. Called when procedures are defined, so a typo fails at start-up, not per request.
 */
export function assertScopeName(scope: unknown, declared: readonly string[] | undefined): asserts scope is string {
  if (!isScopeToken(scope)) {
    throw new TypeError(`Invalid scope name ${JSON.stringify(scope)}: RFC 6749 §3.3 allows %x21 / %x23-5B / %x5D-7E, at least one character`);
  }
  if (declared !== undefined && !declared.includes(scope)) {
    throw new TypeError(`Scope ${JSON.stringify(scope)} is not declared by this reader (declared: ${declared.join(', ') || 'none'})`);
  }
}

/**
 * The reader a manual scope check is made for (`reader` of {@link assertGrantedScopes}): any
 * reader of this library.
 */
export interface ScopeCheckReader {
  /** The reader's 403, with its challenge options (`resource_metadata`) or its own factory. */
  makeInsufficientScopeError(scopes: readonly string[]): TRPCError;
}

/**
 * Throws RFC 6750 `insufficient_scope` (403) unless `granted` holds every scope in `required`.
 * Verified readers check their principal's grant themselves; this is the check for a reader
 * created with `manualScopeCheck: true`, once the resolver knows what the credential grants.
 * Given that `reader`, the check reads its scope hierarchy (`implies`) and refuses with its
 * `makeInsufficientScopeError` (its `resourceMetadata` in the challenge), as a verified reader's
 * step does; without it, no hierarchy and the bare `insufficientScopeError`.
 *
 * @example
 * ```ts
 * const granted = new Set(payload.scope.split(' '));
 * assertGrantedScopes(ctx.securityScopes, granted, auth);
 * ```
 */
export function assertGrantedScopes(required: SecurityScopes, granted: GrantedScopes, reader?: ScopeCheckReader): void {
  // The reader's hierarchy and refusal: without them a manual reader's `implies` and
  // `resourceMetadata` would change nothing (docs/contract.md#securityscopes).
  const expand = (reader as { readonly [READER_PARTS]?: ReaderParts } | undefined)?.[READER_PARTS]?.expand;
  const grant = expand === undefined ? granted : expand(granted, { scopes: granted });
  if (grantsAll(grant, required.scopes)) return;
  throw reader === undefined ? insufficientScopeError(required.scopes) : reader.makeInsufficientScopeError(required.scopes);
}

/** Whether `granted` (a principal's or a credential's scopes) holds every scope of `required`. */
export function grantsAll(granted: GrantedScopes, required: readonly string[]): boolean {
  if ('has' in granted) {
    for (const scope of required) if (!granted.has(scope)) return false;
  } else {
    for (const scope of required) if (!granted.includes(scope)) return false;
  }
  return true;
}
