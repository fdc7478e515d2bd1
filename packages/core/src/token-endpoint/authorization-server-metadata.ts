/**
 * Authorization server metadata (RFC 8414) of an application that runs its own token endpoint
 * with this package, derived from the endpoints it built, so that what it advertises is what
 * they do. See docs/contract.md#authorization-server-metadata.
 * @module
 */
import { canonicalResource, issuerIdentifier } from '../resource/resource-identifier.js';
import { getTokenEndpoint } from './declaration.js';
import { assertScopeName } from '../security-scopes.js';
import { deepFreeze } from '../deep-freeze.js';

/** The client authentication methods `readClientCredentials` reads (RFC 6749 §2.3.1, RFC 7591 §2). */
const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;

/**
 * A client authentication method the token endpoint can read.
 *
 * @example
 * ```ts
 * const method: ClientAuthMethod = 'client_secret_basic';
 * ```
 */
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/**
 * The RFC 8414 §2 members {@link authorizationServerMetadata} writes; `extra` members are added
 * as given. Read-only: the metadata is frozen, deeply.
 *
 * @example
 * ```ts
 * const metadata: AuthorizationServerMetadata = {
 *   issuer: 'https://api.example', token_endpoint: 'https://api.example/token', response_types_supported: [],
 *   grant_types_supported: ['password'], token_endpoint_auth_methods_supported: ['none'],
 * };
 * ```
 */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly token_endpoint: string;
  readonly authorization_endpoint?: string;
  readonly revocation_endpoint?: string;
  readonly revocation_endpoint_auth_methods_supported?: readonly ClientAuthMethod[];
  readonly response_types_supported: readonly string[];
  readonly grant_types_supported: readonly string[];
  readonly token_endpoint_auth_methods_supported: readonly ClientAuthMethod[];
  readonly code_challenge_methods_supported?: readonly ['S256'];
  readonly scopes_supported?: readonly string[];
  /** RFC 9449 §5.1: the DPoP proof algorithms of a token endpoint whose DPoP options are fixed. */
  readonly dpop_signing_alg_values_supported?: readonly string[];
  readonly [member: string]: unknown;
}

/**
 * The options of {@link authorizationServerMetadata}.
 *
 * @example
 * ```ts
 * const options: AuthorizationServerMetadataOptions = {
 *   issuer: 'https://api.example',
 *   token: { procedure: appRouter.token, url: 'https://api.example/token' },
 * };
 * ```
 */
export interface AuthorizationServerMetadataOptions {
  /** The issuer identifier: an `https:` URL without query or fragment (RFC 8414 §2). */
  issuer: string;
  /** The token endpoint's procedure, as `tokenEndpoint(…).build()` made it, and the URL it is served at. */
  token: { procedure: unknown; url: string };
  /** The revocation endpoint's procedure, as `revocationEndpoint(…)` made it, and its URL. */
  revocation?: { procedure: unknown; url: string };
  /** Where the authorization endpoint is, when the `authorization_code` grant is served (required then). */
  authorizationEndpoint?: string;
  /**
   * The client authentication methods `authenticateClient` accepts. Default: every method the
   * endpoint reads (`client_secret_basic`, `client_secret_post`, `none`).
   */
  clientAuthMethods?: readonly ClientAuthMethod[];
  /** `scopes_supported`. Default: not advertised. */
  scopes?: readonly string[];
  /** Other members (`service_documentation`, `jwks_uri`, …), written as given; they cannot replace derived ones. */
  extra?: Readonly<Record<string, unknown>>;
}

/**
 * The RFC 8414 metadata of an authorization server whose token endpoint (and revocation
 * endpoint) this package built: `grant_types_supported` are the grants registered on it, in
 * order; `code_challenge_methods_supported: ["S256"]` when it serves `authorization_code` (the
 * method {@link verifyCodeVerifier} checks); `response_types_supported` is `["code"]` then, else
 * empty; `dpop_signing_alg_values_supported` the proof algorithms of a token endpoint that checks
 * DPoP proofs with fixed options. A procedure that is not such an endpoint, an issuer or URL that is not `https:` (or
 * `http:` on loopback), or an `extra` member that would replace a derived one throws a `TypeError`:
 * the metadata is built once, at start, and frozen, deeply (`extra` values included), as the
 * protected resource metadata is. Serve it at `/.well-known/oauth-authorization-server`.
 *
 * @example
 * ```ts
 * const metadata = authorizationServerMetadata({
 *   issuer: 'https://api.example',
 *   token: { procedure: appRouter.token, url: 'https://api.example/token' },
 *   revocation: { procedure: appRouter.revoke, url: 'https://api.example/revoke' },
 * });
 * metadata.grant_types_supported; // ['password', 'refresh_token']
 * ```
 */
export function authorizationServerMetadata(options: AuthorizationServerMetadataOptions): AuthorizationServerMetadata {
  const issuer = issuerIdentifier(options.issuer, 'issuer');
  const token = getTokenEndpoint(options.token?.procedure);
  if (token?.kind !== 'token') throw new TypeError('token.procedure must be a token endpoint built by tokenEndpoint(…).build()');
  const grantTypes = token.grants.map((grant) => grant.grantType);
  const authorizationCode = grantTypes.includes('authorization_code');
  if (authorizationCode && options.authorizationEndpoint === undefined) {
    throw new TypeError('the token endpoint serves authorization_code: authorizationEndpoint is required');
  }
  const methods = [...(options.clientAuthMethods ?? CLIENT_AUTH_METHODS)];
  for (const method of methods) {
    if (!(CLIENT_AUTH_METHODS as readonly string[]).includes(method)) throw new TypeError(`clientAuthMethods: the endpoint cannot read ${method}`);
  }
  if (methods.length === 0) throw new TypeError('clientAuthMethods must name at least one method');
  // RFC 8414 §2: scope values as RFC 6749 §3.3 writes them, as every scope this library declares.
  for (const scope of options.scopes ?? []) assertScopeName(scope, undefined);

  const metadata: Record<string, unknown> = {
    issuer,
    ...(options.authorizationEndpoint === undefined ? {} : { authorization_endpoint: url(options.authorizationEndpoint, 'authorizationEndpoint') }),
    token_endpoint: url(options.token.url, 'token.url'),
    response_types_supported: authorizationCode ? ['code'] : [],
    grant_types_supported: grantTypes,
    token_endpoint_auth_methods_supported: methods,
    ...(authorizationCode ? { code_challenge_methods_supported: ['S256'] } : {}),
    ...(options.scopes === undefined ? {} : { scopes_supported: [...options.scopes] }),
    // RFC 9449 §5.1: the proof algorithms the token endpoint accepts, when its checker is fixed
    // (options given as a function of ctx are known per request only: `extra` may name them).
    ...(token.dpop?.algorithms ? { dpop_signing_alg_values_supported: [...token.dpop.algorithms] } : {}),
  };
  if (options.revocation !== undefined) {
    if (getTokenEndpoint(options.revocation.procedure)?.kind !== 'revocation') {
      throw new TypeError('revocation.procedure must be a revocation endpoint built by revocationEndpoint(…)');
    }
    metadata.revocation_endpoint = url(options.revocation.url, 'revocation.url');
    metadata.revocation_endpoint_auth_methods_supported = methods;
  }
  for (const [member, value] of Object.entries(options.extra ?? {})) {
    if (member in metadata) throw new TypeError(`extra.${member} would replace a member derived from the endpoints`);
    metadata[member] = value;
  }
  // Built once and served to every client: no request's code may change what the others are
  // served, nor what a handler answers (docs/contract.md#authorization-server-metadata).
  return deepFreeze(metadata) as AuthorizationServerMetadata;
}

/** An endpoint's URL: absolute, `https:` (or loopback `http:`), no fragment, canonical (clients fetch it; only the issuer is compared as text). */
function url(value: string, option: string): string {
  return canonicalResource(value, option);
}
