/**
 * Protected resource metadata (RFC 9728) derived from a router: the chain is the single source of
 * truth, as for the OpenAPI document. See docs/contract.md#protected-resource-metadata.
 * @module
 */
import type { AnyTRPCRouter } from '@trpc/server';
import { canonicalResource, compactJws, deepFreeze, getProcedureSecurity, isBase64urlSegment, issuerIdentifier, jsonSegment, signature } from '@trpc-oauth2/core/protocol';
import { AuthorizationServerMismatchError } from './authorization-server-mismatch-error.js';
import { ResourceAudienceMismatchError } from './resource-audience-mismatch-error.js';

// RFC 9728 §2 leaves scopes out that say nothing about this resource: `offline_access` asks the
// authorization server for a refresh token and is never required by an operation.
const NOT_RESOURCE_SCOPES = new Set(['offline_access']);

/**
 * RFC 9728 §2 metadata, as {@link protectedResourceMetadata} writes it: the derived members and
 * whatever `extra` adds.
 *
 * @example
 * ```ts
 * const metadata: ProtectedResourceMetadata = {
 *   resource: 'https://api.example/mcp',
 *   authorization_servers: ['https://issuer.example'],
 *   scopes_supported: ['items:read', 'items:write'],
 *   bearer_methods_supported: ['header'],
 * };
 * ```
 */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported: readonly string[];
  readonly bearer_methods_supported: readonly ['header'];
  /** The DPoP proof algorithms the readers accept (RFC 9449), when any reader accepts DPoP. */
  readonly dpop_signing_alg_values_supported?: readonly string[];
  /** `true` when every reader requires DPoP-bound tokens; present when any reader accepts DPoP. */
  readonly dpop_bound_access_tokens_required?: boolean;
  readonly resource_name?: string;
  readonly resource_documentation?: string;
  readonly [member: string]: unknown;
}

/**
 * The options of {@link protectedResourceMetadata}.
 *
 * @example
 * ```ts
 * const options: ProtectedResourceMetadataOptions = {
 *   resource: 'https://api.example/mcp',
 *   authorizationServers: ['https://issuer.example'],
 *   resourceDocumentation: 'https://api.example/docs',
 * };
 * ```
 */
export interface ProtectedResourceMetadataOptions {
  /**
   * This resource's identifier (RFC 8707): an `https:` URL (`http:` on a loopback host), no
   * fragment. Every reader's verifier must name its audience and accept this one only, spelled
   * as the metadata advertises it: canonical (see `unnamedAudience`).
   */
  resource: string;
  /**
   * The issuers of the authorization servers whose tokens this resource accepts (at least one),
   * each exactly as its server spells it (the `issuer` of its RFC 8414 metadata, a terminating `/`
   * included): clients compare the two character for character. A verifier that names its issuers
   * must accept every one of them.
   */
  authorizationServers: readonly [string, ...string[]];
  /** `resource_name`: a human-readable name. */
  resourceName?: string;
  /** `resource_documentation`: where a developer reads about this resource. */
  resourceDocumentation?: string;
  /**
   * Other RFC 9728 members (`jwks_uri`, `resource_policy_uri`, `resource_tos_uri`,
   * `authorization_details_types_supported`, …), written as given; one that would replace a
   * derived member is refused. `signed_metadata` must be a JWT in JWS compact form, signed
   * (`alg` not `none`), whose claims hold `iss` and claim no derived member other than it is
   * (RFC 9728 §2.2); its signature is not verified (the server is its signer).
   */
  extra?: Readonly<Record<string, unknown>>;
  /**
   * What to do with a reader whose verifier does not say which audience it accepts (it has no
   * `audience`, as `@trpc-oauth2/jwt`'s verifiers and `anyOf` of them have, or an empty one): `'refuse'` (the
   * default) throws {@link ResourceAudienceMismatchError}, since nothing shows that it validates
   * the advertised resource; `'trust'` takes the application's word that it does.
   */
  unnamedAudience?: 'refuse' | 'trust';
}

/**
 * The RFC 9728 metadata of the resource a router serves, read from every procedure's chain:
 * `scopes_supported` is the union of the scopes its readers declare (their flows' scope maps and
 * what the chains require), without `offline_access`; `bearer_methods_supported` is `["header"]`
 * (the readers read the `Authorization` header only); where a reader accepts DPoP,
 * `dpop_signing_alg_values_supported` is the union of their algorithms and
 * `dpop_bound_access_tokens_required` says whether every reader requires it; `resource` is the
 * option, canonical, and `authorization_servers` the issuers exactly as given. Built once, at
 * start, and checked: a reader whose verifier names an audience (`verify.audience`, as
 * `@trpc-oauth2/jwt`'s verifiers do) that is not exactly the advertised (canonical) `resource`
 * throws {@link ResourceAudienceMismatchError} (what a server advertises is what it validates; the
 * verifiers compare `aud` as a plain string, so another spelling of the same URL is refused too);
 * one whose verifier names its issuers (`verify.issuer`) without an advertised authorization
 * server among them throws {@link AuthorizationServerMismatchError}.
 * A router holding `lazy()` routers that are not loaded yet throws a `TypeError`: load them first.
 * Serve it with the handlers' `resourceMetadata` option.
 *
 * @example
 * ```ts
 * const metadata = protectedResourceMetadata(appRouter, {
 *   resource: 'https://api.example/mcp',
 *   authorizationServers: ['https://issuer.example'],
 * });
 * createOAuth2HTTPServer({ router: appRouter, resourceMetadata: metadata });
 * ```
 */
export function protectedResourceMetadata(router: AnyTRPCRouter, options: ProtectedResourceMetadataOptions): ProtectedResourceMetadata {
  const resource = canonicalResource(options.resource, 'resource');
  if (options.unnamedAudience !== undefined && options.unnamedAudience !== 'refuse' && options.unnamedAudience !== 'trust') {
    throw new TypeError("unnamedAudience must be 'refuse' or 'trust'");
  }
  const servers = options.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) throw new TypeError('authorizationServers must name at least one issuer');
  // As each server spells its issuer: clients compare it with the `issuer` of its metadata (RFC 8414 §3.3).
  const authorizationServers = [...new Set(servers.map((issuer, i) => issuerIdentifier(issuer, `authorizationServers[${i}]`)))];

  const scopes = new Set<string>();
  // RFC 9728 §2: the DPoP algorithms any reader accepts, and whether every reader requires DPoP.
  const dpopAlgorithms = new Set<string>();
  let everyReaderRequiresDPoP = true;
  const procedures = loadedProcedures(router);
  for (const [path, procedure] of Object.entries(procedures)) {
    const security = getProcedureSecurity(procedure);
    if (security === undefined) continue;
    for (const declaration of security.declarations) {
      for (const flow of Object.values(declaration.scheme.flows)) for (const scope of Object.keys(flow?.scopes ?? {})) scopes.add(scope);
      for (const scope of declaration.scopes) scopes.add(scope);
      for (const algorithm of declaration.dpop?.dpop_signing_alg_values_supported ?? []) dpopAlgorithms.add(algorithm);
      if (declaration.dpop?.dpop_bound_access_tokens_required !== true) everyReaderRequiresDPoP = false;
      // An empty list names no audience: it says nothing of the advertised resource (and would
      // pass the loop below without a check), so it is read as a verifier that names none.
      const audiences = declaration.audience?.length === 0 ? undefined : declaration.audience;
      if (declaration.verified === true && audiences === undefined && options.unnamedAudience !== 'trust') {
        throw new ResourceAudienceMismatchError(resource, null, path, declaration.schemeName);
      }
      // Exactly the advertised string: the verifiers compare `aud` as RFC 7519 §2 StringOrURI, a
      // plain string comparison, so an equivalent URL in another spelling would refuse every token
      // issued for the advertised resource (RFC 8707: `aud` is the `resource` the client asked for).
      for (const audience of audiences ?? []) {
        if (audience !== resource) throw new ResourceAudienceMismatchError(resource, audience, path, declaration.schemeName);
      }
      // A client may pick any advertised server (RFC 9728 §2): each must issue tokens this
      // reader accepts, when its verifier names the issuers it accepts (compared exactly, as `iss` is).
      const issuers = declaration.issuer;
      if (issuers !== undefined) {
        for (const server of authorizationServers) {
          if (!issuers.includes(server)) throw new AuthorizationServerMismatchError(server, issuers, path, declaration.schemeName);
        }
      }
    }
  }
  for (const scope of NOT_RESOURCE_SCOPES) scopes.delete(scope);

  const metadata: Record<string, unknown> = {
    resource,
    authorization_servers: authorizationServers,
    scopes_supported: [...scopes],
    bearer_methods_supported: ['header'],
    ...(dpopAlgorithms.size === 0
      ? {}
      : { dpop_signing_alg_values_supported: [...dpopAlgorithms], dpop_bound_access_tokens_required: everyReaderRequiresDPoP }),
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
    ...(options.resourceDocumentation === undefined ? {} : { resource_documentation: options.resourceDocumentation }),
  };
  for (const [member, value] of Object.entries(options.extra ?? {})) {
    if (member in metadata || DERIVED_MEMBERS.has(member)) throw new TypeError(`extra.${member} would replace a member derived from the router`);
    metadata[member] = value;
  }
  if (metadata.signed_metadata !== undefined) checkSignedMetadata(metadata.signed_metadata, metadata);
  return deepFreeze(metadata) as ProtectedResourceMetadata;
}

/**
 * RFC 9728 §2.2: `signed_metadata` is a JWT, signed or MACed (JWS), whose claims are metadata
 * values and hold `iss`, and clients take its values over the plain ones. The server is its
 * signer, so the signature is not checked; what is refused is a value no client could read as
 * signed metadata (not compact JWS: three base64url parts; `alg` missing or `none`; claims that
 * are no JSON object or lack `iss`), and one whose claims would advertise, in place of a derived
 * member, what the readers do not validate (docs/contract.md#protected-resource-metadata).
 */
function checkSignedMetadata(value: unknown, metadata: Readonly<Record<string, unknown>>): void {
  const jws = typeof value === 'string' ? compactJws(value) : undefined;
  if (jws === undefined || ![jws.protectedHeader, jws.payload, jws.signature].every((part) => part !== '' && isBase64urlSegment(part))) {
    throw new TypeError('extra.signed_metadata must be a JWT in JWS compact form (RFC 9728 §2.2): three base64url parts separated by dots');
  }
  const header = jsonSegment(signature, jws.protectedHeader);
  const claims = jsonSegment(signature, jws.payload);
  if (typeof header?.alg !== 'string' || header.alg === '' || header.alg === 'none' || typeof claims?.iss !== 'string') {
    throw new TypeError(
      'extra.signed_metadata must be a signed JWT (RFC 9728 §2.2): a header naming its alg (not none), and claims that are a JSON object with an iss',
    );
  }
  for (const member of DERIVED_MEMBERS) {
    // Compared as JSON, as clients read them: the derived values are strings, booleans and arrays of strings.
    if (Object.hasOwn(claims, member) && JSON.stringify(claims[member]) !== JSON.stringify(metadata[member])) {
      throw new TypeError(`extra.signed_metadata claims ${member} other than the router's metadata says, and clients take signed values over plain ones (RFC 9728 §2.2)`);
    }
  }
}

/**
 * Members that say what the readers validate, derived from them or from the options, or left out
 * because no reader does it: `extra` never writes them, even when absent (a DPoP member with no
 * DPoP reader, mTLS-bound tokens no reader checks), since the metadata would claim what no reader
 * enforces.
 */
const DERIVED_MEMBERS: ReadonlySet<string> = new Set([
  'resource',
  'authorization_servers',
  'scopes_supported',
  'bearer_methods_supported',
  'dpop_signing_alg_values_supported',
  'dpop_bound_access_tokens_required',
  'tls_client_certificate_bound_access_tokens',
  'resource_name',
  'resource_documentation',
]);

/**
 * The router's procedures, every one of them: a tRPC v11 `lazy()` router's procedures join
 * `_def.procedures` only once it is loaded, and a chain this function cannot read would escape the
 * audience check and leave its scopes unadvertised (docs/contract.md#protected-resource-metadata).
 * The metadata is built synchronously at start, so an unloaded one is refused, not skipped.
 */
function loadedProcedures(router: AnyTRPCRouter): Record<string, { _def: object }> {
  const def = router._def as { procedures: Record<string, { _def: object }>; lazy?: Record<string, unknown> };
  const unloaded = Object.keys(def.lazy ?? {});
  if (unloaded.length > 0) {
    throw new TypeError(
      `protectedResourceMetadata reads every procedure's chain, and the lazy() routers at ${unloaded.map((path) => JSON.stringify(path)).join(', ')} ` +
        'are not loaded yet: load them first (tRPC loads each with `await router._def.lazy[path].load()`; ' +
        'a loaded router may hold lazy routers of its own, so repeat until `router._def.lazy` is empty), then build the metadata',
    );
  }
  return def.procedures;
}
