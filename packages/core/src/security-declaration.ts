/**
 * The OpenAPI metadata of a chain: each reader's security scheme and flows, the declaration
 * every security middleware carries under {@link SECURITY}, and a procedure's security read back
 * from its chain (the single source of truth). See docs/contract.md#openapi.
 * @module
 */
import type { TRPCError } from '@trpc/server';

/**
 * Scope name → human description, as OpenAPI's OAuth flow objects declare them.
 *
 * @example
 * ```ts
 * const scopes: ScopeMap = { me: 'Read your profile', items: 'Read your items' };
 * ```
 */
export type ScopeMap = Readonly<Record<string, string>>;

/**
 * OpenAPI 3.1 OAuth Flows Object: the flows a security scheme supports.
 *
 * @example
 * ```ts
 * const flows: OAuthFlows = {
 *   password: { tokenUrl: '/token', scopes: { me: 'Read your profile' } },
 *   authorizationCode: { authorizationUrl: '/authorize', tokenUrl: '/token', scopes: {} },
 * };
 * ```
 */
export interface OAuthFlows {
  implicit?: { authorizationUrl: string; refreshUrl?: string; scopes: ScopeMap };
  password?: { tokenUrl: string; refreshUrl?: string; scopes: ScopeMap };
  clientCredentials?: { tokenUrl: string; refreshUrl?: string; scopes: ScopeMap };
  authorizationCode?: { authorizationUrl: string; tokenUrl: string; refreshUrl?: string; scopes: ScopeMap };
}

/**
 * The scope names declared by any flow of an {@link OAuthFlows}, as a union.
 *
 * @example
 * ```ts
 * type S = FlowScopes<{ password: { tokenUrl: 't'; scopes: { me: '' } } }>; // 'me'
 * ```
 */
export type FlowScopes<TFlows> = {
  [K in keyof TFlows]-?: TFlows[K] extends { scopes: infer $Map } ? keyof $Map & string : never;
}[keyof TFlows];

/**
 * OpenAPI 3.1 Security Scheme Object of type `oauth2`.
 *
 * @example
 * ```ts
 * const scheme: OAuth2SecurityScheme = { type: 'oauth2', flows: { password: { tokenUrl: 'token', scopes: {} } } };
 * ```
 */
export interface OAuth2SecurityScheme {
  type: 'oauth2';
  description?: string;
  flows: OAuthFlows;
}

/**
 * The key under which a security middleware carries its {@link SecurityDeclaration}. It is a
 * global symbol so that two copies of this package still understand each other.
 *
 * @example
 * ```ts
 * auth[SECURITY].schemeName; // 'OAuth2PasswordBearer'
 * ```
 */
export const SECURITY: unique symbol = Symbol.for('trpc-oauth2.security') as never;

/**
 * What one security middleware in a chain declares: its scheme and the scopes it requires.
 * Readers declare themselves with no scopes; `requireScopes` declares scopes for its reader's
 * scheme. Documents are generated from these, so the chain is the single source of truth.
 *
 * @example
 * ```ts
 * const declaration: SecurityDeclaration = {
 *   schemeName: 'OAuth2PasswordBearer',
 *   scheme: auth.securityScheme,
 *   scopes: ['me'],
 * };
 * ```
 */
export interface SecurityDeclaration {
  readonly schemeName: string;
  readonly scheme: OAuth2SecurityScheme;
  readonly scopes: readonly string[];
  /** Set by readers: `true` when the reader lets unauthenticated requests through (`autoError: false`). */
  readonly optional?: boolean;
  /** `true` when the middleware's reader verifies credentials: required scopes then make authentication required. */
  readonly verified?: boolean;
  /**
   * The audiences the reader's verifier accepts, when the verifier names them (its `audience`
   * property): what protected resource metadata is checked against.
   */
  readonly audience?: readonly string[];
  /**
   * Set by `anyOf`: the other schemes this step accepts instead of `schemeName`'s. Each is
   * documented with the same scopes, as an alternative requirement.
   */
  readonly alternatives?: readonly { readonly schemeName: string; readonly scheme: OAuth2SecurityScheme }[];
  /**
   * Set by a reader that accepts DPoP (RFC 9449): what it accepts, in RFC 9728's metadata names,
   * for a protected resource's metadata and the OpenAPI document.
   */
  readonly dpop?: DPoPDeclaration;
}

/**
 * What a reader accepting DPoP declares, named as RFC 9728 §2 names the metadata.
 *
 * @example
 * ```ts
 * const dpop: DPoPDeclaration = { dpop_signing_alg_values_supported: ['ES256'], dpop_bound_access_tokens_required: true };
 * ```
 */
export interface DPoPDeclaration {
  readonly dpop_signing_alg_values_supported: readonly string[];
  /** `true` when only DPoP-bound tokens are accepted (`mode: 'required'`). */
  readonly dpop_bound_access_tokens_required: boolean;
}

/**
 * A declaration and, for an `anyOf` step, one declaration per alternative scheme with the same
 * scopes: what a document lists as alternative requirements (docs/contract.md#openapi).
 *
 * @example
 * ```ts
 * expandDeclaration(anyOf(password, code)[SECURITY]).map((declaration) => declaration.schemeName); // ['Password', 'Code']
 * ```
 */
export function expandDeclaration(declaration: SecurityDeclaration): SecurityDeclaration[] {
  const { alternatives, ...own } = declaration;
  if (alternatives === undefined || alternatives.length === 0) return [declaration];
  return [own, ...alternatives.map(({ schemeName, scheme }) => ({ ...own, schemeName, scheme }))];
}

/**
 * The security of one procedure, merged from every security middleware in its chain, read in
 * one walk of the chain: what a document writes (docs/contract.md#openapi).
 *
 * @example
 * ```ts
 * const security: ProcedureSecurity = {
 *   schemes: { OAuth2PasswordBearer: auth.securityScheme },
 *   requirement: { OAuth2PasswordBearer: ['me', 'items'] },
 *   optional: false,
 *   declarations: [auth[SECURITY], auth.requireScopes('me', 'items')[SECURITY]],
 *   notAuthenticatedErrors: [() => auth.makeNotAuthenticatedError()],
 * };
 * ```
 */
export interface ProcedureSecurity {
  /** Every scheme the chain uses, by scheme name. */
  schemes: Record<string, OAuth2SecurityScheme>;
  /** One OpenAPI Security Requirement: scheme name → the scopes the chain accumulated for it. */
  requirement: Record<string, string[]>;
  /**
   * `true` when every reader in the chain has `autoError: false`: authentication is optional;
   * unless the chain requires scopes of a verified reader (docs/contract.md#verified-readers).
   */
  optional: boolean;
  /**
   * Every security declaration of the chain, in the order the chain runs: two different schemes
   * under one name are caught even inside one chain, and scopes read in the order they accumulate.
   */
  declarations: readonly SecurityDeclaration[];
  /**
   * For each reader that refuses an unauthenticated request (not `autoError: false`), in chain
   * order: the error it answers with, from its own `makeNotAuthenticatedError` (so an overridden
   * factory is documented as it behaves).
   */
  notAuthenticatedErrors: readonly (() => TRPCError)[];
}

/** A security middleware as the chain holds it: its declaration, and a reader's error factory. */
interface SecurityMiddleware {
  [SECURITY]?: SecurityDeclaration;
  makeNotAuthenticatedError?: () => TRPCError;
}

/**
 * Reads a built procedure's (or procedure builder's) security from its middleware chain, in one
 * walk. Returns `undefined` for a procedure that uses no reader and requires no scope.
 *
 * @example
 * ```ts
 * const router = t.router({ me: authed.use(auth.requireScopes('me')).query(() => 1) });
 * getProcedureSecurity(router.me)?.requirement; // { OAuth2PasswordBearer: ['me'] }
 * ```
 */
export function getProcedureSecurity(procedure: { _def: object }): ProcedureSecurity | undefined {
  const middlewares = ((procedure._def as { middlewares?: readonly unknown[] }).middlewares ?? []) as readonly (SecurityMiddleware | null)[];
  let security: ProcedureSecurity | undefined;
  const declarations: SecurityDeclaration[] = [];
  const notAuthenticatedErrors: (() => TRPCError)[] = [];
  let readers = 0;
  let optionalReaders = 0;
  let verifiedReaders = false;
  let anyScopes = false;
  for (const middleware of middlewares) {
    const declaration = middleware?.[SECURITY];
    if (declaration === undefined) continue;
    security ??= { schemes: {}, requirement: {}, optional: false, declarations, notAuthenticatedErrors };
    // An `anyOf` step stands for each scheme it accepts, with the same scopes.
    for (const expanded of expandDeclaration(declaration)) {
      declarations.push(expanded);
      security.schemes[expanded.schemeName] = expanded.scheme;
      const scopes = (security.requirement[expanded.schemeName] ??= []);
      for (const scope of expanded.scopes) if (!scopes.includes(scope)) scopes.push(scope);
    }
    if (declaration.verified === true) verifiedReaders = true;
    if (declaration.scopes.length > 0) anyScopes = true;
    if (declaration.optional !== undefined) {
      readers++;
      if (declaration.optional) optionalReaders++;
      const refuse = middleware!.makeNotAuthenticatedError;
      if (!declaration.optional && typeof refuse === 'function') notAuthenticatedErrors.push(() => refuse.call(middleware));
    }
  }
  if (security) security.optional = readers > 0 && readers === optionalReaders && !(verifiedReaders && anyScopes);
  return security;
}
