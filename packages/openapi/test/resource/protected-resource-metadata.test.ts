// RFC 9728 protected resource metadata, read from the router's chains, checked against the
// verifiers' audiences and issuers, and served on every face (docs/contract.md#protected-resource-metadata).
import { generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import {
  anyOf,
  oauth2AuthorizationCodeBearer,
  oauth2Bearer,
  oauth2PasswordBearer,
  requireAuthentication,
  type Principal,
  type TokenVerifier,
} from '@trpc-oauth2/core';
import { dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { cacheVerifier, introspectionVerifier, jwtVerifier } from '@trpc-oauth2/jwt';
import { initTRPC, lazy, type AnyTRPCRouter } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, serveKeySet, type LoopbackKeySet } from '@trpc-oauth2/test-kit';
import { z } from 'zod';
import {
  AuthorizationServerMismatchError,
  protectedResourceMetadata,
  RESOURCE_METADATA_PATH,
  ResourceAudienceMismatchError,
  resourceMetadataUrl,
  type ProtectedResourceMetadata,
} from '../../src/index.js';
import { FACES, isRest, REST_FACES, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const RESOURCE = 'https://api.example/mcp';
const ISSUER = 'https://issuer.example';

/** A verifier bound to `audience`, as `@trpc-oauth2/jwt`'s are. */
const boundVerifier = (...audience: string[]): TokenVerifier<Principal> =>
  Object.assign(async (token: string) => ({ scopes: token.split('+') }), { audience });

const t = initTRPC.context<{ req?: unknown }>().meta<{ openapi?: { method: 'GET'; path: `/${string}` } }>().create();

function routerFor(verify: TokenVerifier<Principal>) {
  const password = oauth2PasswordBearer({
    tokenUrl: '/token',
    scopes: { 'items:read': 'Read items', 'items:write': 'Write items', offline_access: 'Refresh tokens' },
    verify,
  });
  const code = oauth2AuthorizationCodeBearer({
    authorizationUrl: `${ISSUER}/auth`,
    tokenUrl: `${ISSUER}/token`,
    scopes: { profile: 'Your profile' },
    schemeName: 'Code',
    verify,
  });
  return t.router({
    items: t.procedure.meta({ openapi: { method: 'GET', path: '/items' } }).use(password.withScopes('items:read')).input(z.void()).output(z.array(z.string())).query(() => ['a']),
    profile: t.procedure.use(code.withScopes('profile')).query(() => 'me'),
    open: t.procedure.query(() => 'open'),
  });
}

describe('the metadata', () => {
  it('is derived from the chains: the declared scopes without offline_access, header bearer tokens, the resource canonical, the issuers as given', () => {
    const metadata = protectedResourceMetadata(routerFor(boundVerifier(RESOURCE)), {
      resource: 'HTTPS://API.example:443/mcp',
      authorizationServers: [ISSUER],
      resourceName: 'Items',
      resourceDocumentation: 'https://api.example/docs',
      extra: { resource_policy_uri: 'https://api.example/policy' },
    });
    expect(metadata).toEqual({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      scopes_supported: ['items:read', 'items:write', 'profile'],
      bearer_methods_supported: ['header'],
      resource_name: 'Items',
      resource_documentation: 'https://api.example/docs',
      resource_policy_uri: 'https://api.example/policy',
    });
    expect(Object.isFrozen(metadata) && Object.isFrozen(metadata.scopes_supported)).toBe(true);
  });

  it('says which DPoP proofs the readers accept, and whether every reader requires DPoP-bound tokens (RFC 9728 §2)', () => {
    const verify = boundVerifier(RESOURCE);
    const reader = (schemeName: string, mode: 'allowed' | 'required', algorithms: readonly ('ES256' | 'EdDSA' | 'PS256')[]) =>
      oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'You' }, schemeName, verify, origin: new URL(RESOURCE).origin, dpop: { mode, proofs: dpopProofVerifier({ algorithms }) } });
    const bearer = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'You' }, schemeName: 'Bearer', verify });
    const metadataOf = (...readers: ReturnType<typeof reader>[]) =>
      protectedResourceMetadata(t.router(Object.fromEntries(readers.map((r, i) => [`p${i}`, t.procedure.use(r.withScopes('me')).query(() => i)]))), {
        resource: RESOURCE,
        authorizationServers: [ISSUER],
      });
    const dpopMembers = (metadata: ProtectedResourceMetadata) => ({
      algs: metadata.dpop_signing_alg_values_supported,
      required: metadata.dpop_bound_access_tokens_required,
    });
    expect(dpopMembers(metadataOf(reader('A', 'required', ['ES256']), reader('B', 'required', ['EdDSA', 'ES256'])))).toEqual({ algs: ['ES256', 'EdDSA'], required: true });
    expect(dpopMembers(metadataOf(reader('A', 'required', ['ES256']), reader('B', 'allowed', ['PS256'])))).toEqual({ algs: ['ES256', 'PS256'], required: false });
    // A plain bearer reader beside a DPoP one: bound tokens are not required everywhere.
    expect(dpopMembers(metadataOf(reader('A', 'required', ['ES256']), bearer))).toEqual({ algs: ['ES256'], required: false });
    // No reader accepts DPoP: neither member is written.
    const plain = metadataOf(bearer);
    expect('dpop_signing_alg_values_supported' in plain || 'dpop_bound_access_tokens_required' in plain).toBe(false);
    expect(() =>
      protectedResourceMetadata(t.router({ p: t.procedure.use(reader('A', 'required', ['ES256']).withScopes('me')).query(() => 1) }), {
        resource: RESOURCE,
        authorizationServers: [ISSUER],
        extra: { dpop_bound_access_tokens_required: false },
      }),
    ).toThrow('extra.dpop_bound_access_tokens_required would replace a member derived from the router');
    // Nor may it claim what no reader enforces: DPoP where no reader accepts it, mTLS-bound tokens.
    for (const extra of [{ dpop_bound_access_tokens_required: true }, { dpop_signing_alg_values_supported: ['ES256'] }, { tls_client_certificate_bound_access_tokens: true }, { resource_name: 'x' }]) {
      const member = Object.keys(extra)[0]!;
      expect(() => protectedResourceMetadata(t.router({ p: t.procedure.use(bearer.withScopes('me')).query(() => 1) }), { resource: RESOURCE, authorizationServers: [ISSUER], extra })).toThrow(
        `extra.${member} would replace a member derived from the router`,
      );
    }
  });

  // The verifiers compare `aud` exactly (RFC 7519 §2), and clients ask tokens for the advertised
  // (canonical) resource: a verifier naming it in another spelling would refuse every one of them.
  it.each([
    ['upper case and the default port', 'https://API.EXAMPLE:443/mcp', RESOURCE, RESOURCE],
    ['an upper-case scheme', 'HTTPS://api.example/mcp', RESOURCE, RESOURCE],
    ['the same constant as the resource option, with a lone /', 'https://api.example/', 'https://api.example/', 'https://api.example'],
  ])('refuses a verifier that names the resource in another spelling (%s), naming both spellings', (_name, audience, resource, advertised) => {
    let thrown: unknown;
    try {
      protectedResourceMetadata(routerFor(boundVerifier(audience)), { resource, authorizationServers: [ISSUER] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ResourceAudienceMismatchError);
    const mismatch = thrown as ResourceAudienceMismatchError;
    expect(mismatch).toMatchObject({ code: 'ERR_RESOURCE_AUDIENCE_MISMATCH', audience, resource: advertised });
    expect(mismatch.message).toContain(`accepts tokens for audience "${audience}", another spelling of it`);
    expect(mismatch.message).toContain(`Configure the verifier with the advertised audience "${advertised}"`);
  });

  it('accepts a verifier that names the resource exactly as advertised, whatever the spelling of the resource option', () => {
    const metadata = protectedResourceMetadata(routerFor(boundVerifier(RESOURCE)), { resource: 'HTTPS://API.example:443/mcp', authorizationServers: [ISSUER] });
    expect(metadata.resource).toBe(RESOURCE);
  });

  it("refuses a verifier that does not say which audience it accepts, unless the application vouches for it (unnamedAudience: 'trust')", () => {
    const unbound: TokenVerifier<Principal> = async () => ({ scopes: [] });
    let thrown: unknown;
    try {
      protectedResourceMetadata(routerFor(unbound), { resource: RESOURCE, authorizationServers: [ISSUER] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ResourceAudienceMismatchError);
    expect(thrown).toMatchObject({ code: 'ERR_RESOURCE_AUDIENCE_MISMATCH', audience: null, resource: RESOURCE });
    expect((thrown as Error).message).toContain('does not say which audience it accepts');
    expect(() => protectedResourceMetadata(routerFor(unbound), { resource: RESOURCE, authorizationServers: [ISSUER], unnamedAudience: 'trust' })).not.toThrow();
    expect(() => protectedResourceMetadata(routerFor(unbound), { resource: RESOURCE, authorizationServers: [ISSUER], unnamedAudience: 'yes' as never })).toThrow(TypeError);
  });

  it('refuses a verifier whose audience list is empty as one that names none: it says nothing of the advertised resource', () => {
    const empty: TokenVerifier<Principal> = Object.assign(async () => ({ scopes: [] }), { audience: [] as string[] });
    let thrown: unknown;
    try {
      protectedResourceMetadata(routerFor(empty), { resource: RESOURCE, authorizationServers: [ISSUER] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ResourceAudienceMismatchError);
    expect(thrown).toMatchObject({ code: 'ERR_RESOURCE_AUDIENCE_MISMATCH', audience: null, resource: RESOURCE });
  });

  it('checks the readers anyOf combines: their audiences together, and any that names none', () => {
    const reader = (schemeName: string, verify: TokenVerifier<Principal>) => oauth2PasswordBearer({ tokenUrl: '/token', scopes: { items: 'Items' }, schemeName, verify });
    const routerOf = (...readers: [ReturnType<typeof reader>, ReturnType<typeof reader>]) => {
      const group = anyOf(...readers);
      return t.router({ items: t.procedure.use(group.withScopes('items')).query(() => []) });
    };
    const ok = routerOf(reader('A', boundVerifier(RESOURCE)), reader('B', boundVerifier(RESOURCE)));
    expect(() => protectedResourceMetadata(ok, { resource: RESOURCE, authorizationServers: [ISSUER] })).not.toThrow();
    const respelled = routerOf(reader('A', boundVerifier(RESOURCE)), reader('B', boundVerifier('https://api.example:443/mcp')));
    expect(() => protectedResourceMetadata(respelled, { resource: RESOURCE, authorizationServers: [ISSUER] })).toThrow(/"https:\/\/api.example:443\/mcp", another spelling of it/);
    const foreign = routerOf(reader('A', boundVerifier(RESOURCE)), reader('B', boundVerifier('https://other.example/api')));
    expect(() => protectedResourceMetadata(foreign, { resource: RESOURCE, authorizationServers: [ISSUER] })).toThrow(/accepts tokens for audience "https:\/\/other.example\/api"/);
    const unnamed = routerOf(reader('A', boundVerifier(RESOURCE)), reader('B', async () => ({ scopes: [] })));
    expect(() => protectedResourceMetadata(unnamed, { resource: RESOURCE, authorizationServers: [ISSUER] })).toThrow(/does not say which audience/);
  });

  // What you advertise is what you validate: clients get tokens for `resource`, so a verifier
  // accepting another audience would accept tokens minted for another API.
  it.each([
    ['another resource', ['https://other.example/api']],
    ['the origin, not the path', ['https://api.example']],
    ['the resource and another', [RESOURCE, 'https://other.example/api']],
    ['an audience that is not a URL', ['api']],
  ])('refuses a router whose verifier accepts %s, at start, with a clear error', (_name, audience) => {
    let thrown: unknown;
    try {
      protectedResourceMetadata(routerFor(boundVerifier(...audience)), { resource: RESOURCE, authorizationServers: [ISSUER] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ResourceAudienceMismatchError);
    const mismatch = thrown as ResourceAudienceMismatchError;
    expect(mismatch.code).toBe('ERR_RESOURCE_AUDIENCE_MISMATCH');
    expect(audience).toContain(mismatch.audience);
    expect(mismatch.audience).not.toBe(RESOURCE);
    expect(mismatch.message).toContain(`advertises resource "${RESOURCE}"`);
    expect(mismatch.message).toContain(`accepts tokens for audience "${mismatch.audience}"`);
    expect(['items', 'profile']).toContain(mismatch.procedure);
  });

  it.each([
    ['a resource that is not https', { resource: 'http://api.example/mcp' }, 'resource must be an https: URL'],
    ['a resource with a fragment', { resource: `${RESOURCE}#x` }, 'resource must not have a fragment'],
    ['no authorization server', { authorizationServers: [] }, 'authorizationServers must name at least one issuer'],
    ['an extra member replacing a derived one', { extra: { scopes_supported: ['admin'] } }, 'extra.scopes_supported would replace'],
  ])('refuses %s', (_name, override, message) => {
    const options = { resource: RESOURCE, authorizationServers: [ISSUER], ...override };
    expect(() => protectedResourceMetadata(routerFor(boundVerifier(RESOURCE)), options as never)).toThrow(message);
  });

  // RFC 9728 §2.2: `signed_metadata` is a JWT, signed or MACed (JWS), whose claims are metadata
  // values and hold `iss`; clients take its values over the plain ones. The server signs it, so
  // its signature is not checked, but a value no client could read as such is refused at start.
  describe('a signed_metadata member (RFC 9728 §2.2)', () => {
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const part = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
    /** A compact JWS over `claims`, ES256, as the server signs its metadata. */
    const signed = (claims: unknown, header: unknown = { alg: 'ES256', typ: 'JWT' }) => {
      const input = `${part(header)}.${part(claims)}`;
      return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    };
    const claims = { iss: ISSUER, resource: RESOURCE, resource_policy_uri: 'https://api.example/policy' };
    const build = (signedMetadata: unknown) =>
      protectedResourceMetadata(routerFor(boundVerifier(RESOURCE)), { resource: RESOURCE, authorizationServers: [ISSUER], extra: { signed_metadata: signedMetadata } });

    it('is written as given when it is a signed JWT whose claims agree with what the router says', () => {
      const jwt = signed(claims);
      expect(build(jwt).signed_metadata).toBe(jwt);
      // The whole plain metadata, signed: every derived member claimed, each as derived.
      const plain = protectedResourceMetadata(routerFor(boundVerifier(RESOURCE)), { resource: RESOURCE, authorizationServers: [ISSUER] });
      expect(() => build(signed({ ...plain, iss: ISSUER }))).not.toThrow();
    });

    const form = 'extra.signed_metadata must be a JWT in JWS compact form (RFC 9728 §2.2): three base64url parts separated by dots';
    const unsigned = 'extra.signed_metadata must be a signed JWT (RFC 9728 §2.2): a header naming its alg (not none), and claims that are a JSON object with an iss';
    it.each([
      ['not a string', () => 42, form],
      ['the claims as an object, not a JWT', () => claims, form],
      ['a string that is no JWS', () => 'signed', form],
      ['two parts', () => signed(claims).split('.').slice(0, 2).join('.'), form],
      ['four parts', () => `${signed(claims)}.e30`, form],
      ['padding in a part', () => `${signed(claims)}=`, form],
      ['a part with a character outside base64url', () => signed(claims).replace('.', '.+'), form],
      ['an empty header', () => signed(claims).replace(/^[^.]*/, ''), form],
      ['an unsecured JWT (no signature)', () => `${part({ alg: 'none' })}.${part(claims)}.`, form],
      ['alg none with a signature', () => signed(claims, { alg: 'none' }), unsigned],
      ['a header that names no alg', () => signed(claims, { typ: 'JWT' }), unsigned],
      ['a header that is not JSON', () => signed(claims, 'not json'), unsigned],
      ['claims that are not a JSON object', () => signed([claims]), unsigned],
      ['claims without iss (§2.2: required)', () => signed({ resource: RESOURCE }), unsigned],
    ])('refuses %s, at start', (_name, value, message) => {
      expect(() => build(value())).toThrow(new TypeError(message));
    });

    // Its values take precedence over the plain ones (§2.2): one that says otherwise about what
    // the readers validate would advertise what they do not.
    it.each([
      ['resource', 'https://other.example/api'],
      ['authorization_servers', ['https://evil.example']],
      ['scopes_supported', ['items:read', 'items:write', 'profile', 'admin']],
      ['dpop_bound_access_tokens_required', true], // no reader accepts DPoP
    ])('refuses a claimed %s other than the derived one', (member, value) => {
      expect(() => build(signed({ ...claims, [member]: value }))).toThrow(
        new TypeError(`extra.signed_metadata claims ${member} other than the router's metadata says, and clients take signed values over plain ones (RFC 9728 §2.2)`),
      );
    });
  });

  it.each([
    ['an authorization server with a query', { authorizationServers: [`${ISSUER}/?tenant=1`] }, 'authorizationServers[0] must not have a query'],
    ['an authorization server with a fragment', { authorizationServers: [`${ISSUER}#x`] }, 'authorizationServers[0] must not have a fragment'],
    ['an authorization server with credentials', { authorizationServers: ['https://user:pw@issuer.example'] }, 'authorizationServers[0] must not carry credentials'],
    ['an authorization server with a trailing space', { authorizationServers: [ISSUER, `${ISSUER} `] }, 'authorizationServers[1] must not contain whitespace'],
    ['an authorization server that is not https', { authorizationServers: ['http://issuer.example'] }, 'authorizationServers[0] must be an https: URL'],
  ])('refuses %s', (_name, { authorizationServers }, message) => {
    expect(() => protectedResourceMetadata(routerFor(boundVerifier(RESOURCE)), { resource: RESOURCE, authorizationServers: authorizationServers as [string, ...string[]] })).toThrow(message);
  });

  it('is found at the path-aware well-known URL of its resource (RFC 9728 §3.1)', () => {
    expect(resourceMetadataUrl('https://api.example/mcp')).toBe('https://api.example/.well-known/oauth-protected-resource/mcp');
    expect(resourceMetadataUrl('https://api.example')).toBe('https://api.example/.well-known/oauth-protected-resource');
    expect(resourceMetadataUrl('http://127.0.0.1:8080/a/b')).toBe('http://127.0.0.1:8080/.well-known/oauth-protected-resource/a/b');
  });
});

// RFC 8414 §3.3: a client compares the `issuer` of a server's metadata with the identifier it
// took from `authorization_servers`, character for character; a verifier compares `iss` alike.
describe('the authorization servers', () => {
  /** A verifier bound to the resource, accepting tokens of `issuer`, as `@trpc-oauth2/jwt`'s say. */
  const issuedBy = (...issuer: string[]): TokenVerifier<Principal> =>
    Object.assign(async (token: string) => ({ scopes: token.split('+') }), { audience: [RESOURCE], issuer });
  const build = (verify: TokenVerifier<Principal>, authorizationServers: readonly [string, ...string[]]) =>
    protectedResourceMetadata(routerFor(verify), { resource: RESOURCE, authorizationServers });
  const thrownBy = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('are advertised exactly as given: a terminating /, the case of the host; each once', () => {
    const servers = ['https://tenant.example/', 'https://AS.example/realms/a/'] as const;
    expect(build(issuedBy(...servers), servers).authorization_servers).toEqual(servers);
    expect(build(issuedBy(...servers), [...servers, servers[0]]).authorization_servers).toEqual(servers);
  });

  it('refuse a server whose tokens a verifier does not accept, naming the server, the issuers, the procedure and the reader', () => {
    const thrown = thrownBy(() => build(issuedBy('https://login.example'), [ISSUER]));
    expect(thrown).toBeInstanceOf(AuthorizationServerMismatchError);
    expect(thrown).toMatchObject({ code: 'ERR_AUTHORIZATION_SERVER_MISMATCH', authorizationServer: ISSUER, issuers: ['https://login.example'], schemeName: 'OAuth2PasswordBearer', procedure: 'items' });
    expect((thrown as Error).message).toContain(`advertises authorization server "${ISSUER}"`);
    expect((thrown as Error).message).toContain(`add "${ISSUER}" to the verifier's issuers`);
  });

  it.each([
    ['a terminating / the verifier lacks', `${ISSUER}/`, ISSUER],
    ['a terminating / the metadata lacks', ISSUER, `${ISSUER}/`],
    ['an upper-case host', 'https://ISSUER.example', ISSUER],
    ['the default port', 'https://issuer.example:443', ISSUER],
  ])('refuse another spelling of a server the verifier accepts (%s), saying so', (_name, advertised, accepted) => {
    const thrown = thrownBy(() => build(issuedBy(accepted), [advertised]));
    expect(thrown).toBeInstanceOf(AuthorizationServerMismatchError);
    expect((thrown as Error).message).toContain(`"${accepted}" is another spelling of it, and issuers are compared exactly`);
  });

  it('need every advertised server accepted; a verifier may accept more than is advertised', () => {
    expect(() => build(issuedBy(ISSUER, 'https://next.example'), [ISSUER])).not.toThrow();
    expect(thrownBy(() => build(issuedBy(ISSUER), [ISSUER, 'https://next.example']))).toMatchObject({ authorizationServer: 'https://next.example' });
  });

  it('are not checked against a verifier that does not name its issuers', () => {
    expect(() => build(boundVerifier(RESOURCE), ['https://anything.example/'])).not.toThrow();
  });

  it("are checked against the issuers of @trpc-oauth2/jwt's verifiers, through cacheVerifier too", () => {
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const jwt = jwtVerifier({ key, algorithms: ['ES256'], issuer: `${ISSUER}/`, audience: RESOURCE });
    expect(jwt.issuer).toEqual([`${ISSUER}/`]);
    expect(cacheVerifier(jwt, { maxEntries: 10 }).issuer).toEqual([`${ISSUER}/`]);
    expect(() => build(cacheVerifier(jwt, { maxEntries: 10 }), [`${ISSUER}/`])).not.toThrow();
    expect(thrownBy(() => build(cacheVerifier(jwt, { maxEntries: 10 }), [ISSUER]))).toBeInstanceOf(AuthorizationServerMismatchError);
    const introspection = introspectionVerifier({ endpoint: `${ISSUER}/introspect`, clientId: 'rs', clientSecret: 's', audience: RESOURCE, issuer: ISSUER });
    expect(introspection.issuer).toEqual([ISSUER]);
    expect(introspectionVerifier({ endpoint: `${ISSUER}/introspect`, clientId: 'rs', clientSecret: 's', audience: RESOURCE }).issuer).toBeUndefined();
    expect(thrownBy(() => build(introspection, ['https://login.example']))).toBeInstanceOf(AuthorizationServerMismatchError);
  });

  // Whatever the readers of a chain and the servers advertised, the metadata is built exactly when
  // every advertised server is accepted by every reader naming its issuers (anyOf: by one of its
  // readers, or by none naming any).
  it('build exactly when every advertised server is accepted, over random readers, groups and servers', () => {
    const pool = [ISSUER, `${ISSUER}/`, 'https://login.example', 'https://ISSUER.example', 'https://issuer.example/tenant'];
    const issuers = fc.option(fc.uniqueArray(fc.constantFrom(...pool), { minLength: 1, maxLength: 3 }), { nil: undefined });
    fc.assert(
      fc.property(
        fc.array(fc.array(issuers, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
        fc.uniqueArray(fc.constantFrom(...pool), { minLength: 1, maxLength: 3 }),
        (chain, servers) => {
          const verify = (named: string[] | undefined): TokenVerifier<Principal> => (named === undefined ? boundVerifier(RESOURCE) : issuedBy(...named));
          let index = 0;
          const reader = (named: string[] | undefined) => oauth2PasswordBearer({ tokenUrl: '/token', scopes: { items: 'Items' }, schemeName: `R${index++}`, verify: verify(named) });
          let procedure = t.procedure;
          for (const group of chain) {
            const readers = group.map(reader);
            procedure = procedure.use(readers.length === 1 ? readers[0]!.withScopes('items') : anyOf(...(readers as [ReturnType<typeof reader>, ReturnType<typeof reader>])).withScopes('items'));
          }
          const router = t.router({ items: procedure.query(() => []) });
          const accepts = (group: (string[] | undefined)[], server: string) => group.some((named) => named === undefined) || group.some((named) => named!.includes(server));
          const expected = chain.every((group) => servers.every((server) => accepts(group, server)));
          const thrown = thrownBy(() => protectedResourceMetadata(router, { resource: RESOURCE, authorizationServers: servers as [string, ...string[]] }));
          if (expected) expect(thrown).toBeUndefined();
          else expect(thrown).toBeInstanceOf(AuthorizationServerMismatchError);
        },
      ),
      { numRuns: 300 },
    );
  });
});

// tRPC v11 `lazy()`: a sub-router's procedures join `_def.procedures` only once it is loaded, so
// the metadata, built synchronously at start, refuses a router with unloaded ones.
describe('lazy() routers', () => {
  const options = { resource: RESOURCE, authorizationServers: [ISSUER] } as const;
  const reader = (audience: string, scopes: Record<string, string>) =>
    oauth2Bearer({ flows: { clientCredentials: { tokenUrl: `${ISSUER}/token`, scopes } }, verify: boundVerifier(audience) });
  const adminRouter = (audience: string) => t.router({ wipe: t.procedure.use(reader(audience, { admin: 'Administer' }).withScopes('admin')).mutation(() => 'wiped') });
  const appRouter = (adminAudience: string) =>
    t.router({
      items: t.procedure.use(reader(RESOURCE, { read: 'Read' }).withScopes('read')).query(() => 'ok'),
      admin: lazy(async () => adminRouter(adminAudience)),
      // A lazy router that holds another: loading the outer one reveals the inner one.
      nested: t.router({ deep: lazy(async () => t.router({ inner: lazy(async () => adminRouter(adminAudience)) })) }),
    });
  /** What the TypeError tells an application to do: load every lazy router, and those they hold. */
  async function loadLazyRouters(router: AnyTRPCRouter) {
    for (let loaders = Object.values(router._def.lazy); loaders.length > 0; loaders = Object.values(router._def.lazy)) {
      await Promise.all(loaders.map((loader) => loader.load()));
    }
  }

  it('refuses a router whose lazy routers are not loaded yet, naming them: their chains would escape the audience check', async () => {
    const router = appRouter(RESOURCE);
    expect(() => protectedResourceMetadata(router, options)).toThrow(TypeError);
    expect(() => protectedResourceMetadata(router, options)).toThrow('the lazy() routers at "admin", "nested.deep" are not loaded yet: load them first');
    await router._def.lazy['nested.deep']!.load();
    expect(() => protectedResourceMetadata(router, options)).toThrow('the lazy() routers at "admin", "nested.deep.inner" are not loaded yet');
  });

  it('reads them once loaded: their scopes are advertised and their verifiers checked', async () => {
    const router = appRouter(RESOURCE);
    await loadLazyRouters(router);
    expect(Object.keys(router._def.procedures).sort()).toEqual(['admin.wipe', 'items', 'nested.deep.inner.wipe']);
    expect(protectedResourceMetadata(router, options).scopes_supported).toEqual(['read', 'admin']);
    const foreign = appRouter('https://other.example/api');
    await loadLazyRouters(foreign);
    expect(() => protectedResourceMetadata(foreign, options)).toThrow(ResourceAudienceMismatchError);
  });
});

// End to end: the audience the check makes the verifier name is the `aud` of the tokens clients
// get for the advertised resource (RFC 8707), and the real jwtVerifier accepts them.
describe.each(REST_FACES)('a token for the advertised resource, on the %s face', (face: Face) => {
  let keySet: LoopbackKeySet;
  let metadata: ProtectedResourceMetadata;
  let server: RunningFace;
  beforeAll(async () => {
    keySet = await serveKeySet();
    const auth = oauth2Bearer({
      flows: { clientCredentials: { tokenUrl: `${keySet.issuer}/token`, scopes: { 'items:read': 'Read' } } },
      verify: jwtVerifier({ jwksUrl: `${keySet.issuer}/jwks`, algorithms: ['ES256'], issuer: keySet.issuer, audience: RESOURCE }),
    });
    const router = t.router({
      items: t.procedure.meta({ openapi: { method: 'GET', path: '/items' } }).use(auth.withScopes('items:read')).input(z.void()).output(z.string()).query(() => 'items'),
    });
    // The option in another spelling: the metadata advertises it canonical, as the verifier names it.
    metadata = protectedResourceMetadata(router, { resource: 'HTTPS://API.example:443/mcp', authorizationServers: [keySet.issuer] });
    server = (await serveFaces(router, [face], { resourceMetadata: metadata }))[face];
  });
  afterAll(async () => {
    await Promise.all([server?.close(), keySet?.close()]);
  });

  const items = async (token: string) => (await fetch(`${server.origin}/api/items`, { headers: { authorization: `Bearer ${token}` } })).status;

  it('is accepted; one for another spelling of it is not, as the verifier compares aud exactly', async () => {
    expect(metadata.resource).toBe(RESOURCE);
    expect(await items(await keySet.token({ scope: 'items:read' }, { audience: metadata.resource }))).toBe(200);
    expect(await items(await keySet.token({ scope: 'items:read' }, { audience: 'HTTPS://API.example:443/mcp' }))).toBe(401);
  });
});

describe.each(FACES)('served on the %s face', (face: Face) => {
  let metadata: ProtectedResourceMetadata;
  let server: RunningFace;
  beforeAll(async () => {
    const router = routerFor(boundVerifier(RESOURCE));
    metadata = protectedResourceMetadata(router, { resource: RESOURCE, authorizationServers: [ISSUER] });
    server = (await serveFaces(router, [face], { resourceMetadata: metadata }))[face];
  });
  afterAll(() => server.close());

  it.each([`${RESOURCE_METADATA_PATH}/mcp`, RESOURCE_METADATA_PATH, `${RESOURCE_METADATA_PATH}/mcp?x=1`])('GET %s → 200, the metadata, readable from any origin', async (path) => {
    const response = await fetch(`${server.origin}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual(metadata);
  });

  it.each([`${RESOURCE_METADATA_PATH}/./mcp`, `${RESOURCE_METADATA_PATH}/x/../mcp`, `/x/..${RESOURCE_METADATA_PATH}/%2e/mcp`])(
    'GET %s, sent as it is → the metadata, as every face resolves the path (a URL pathname)',
    async (path) => {
      // Written byte for byte: fetch would resolve the dot segments before sending.
      const answer = await rawRequest(server.origin, { path });
      expect(answer.status, answer.body.slice(0, 200)).toBe(200);
      expect(JSON.parse(answer.body)).toEqual(metadata);
    },
  );

  it('answers another method 405, and a path beside it is not the metadata', async () => {
    const post = await fetch(`${server.origin}${RESOURCE_METADATA_PATH}/mcp`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const other = await fetch(`${server.origin}${RESOURCE_METADATA_PATH}/other`);
    expect(other.status).toBe(404);
  });

  it('frames each answer by its own body, after a GET as before it (a runtime may write into the headers it is given)', async () => {
    const path = `${RESOURCE_METADATA_PATH}/mcp`;
    // @hono/node-server, which serves the fetch faces here, adds `Content-Length` to a plain headers object.
    for (const method of ['GET', 'POST', 'OPTIONS', 'GET', 'POST', 'OPTIONS']) {
      const answer = await rawRequest(server.origin, { method, path, ...(method === 'POST' ? { body: '{}' } : {}) });
      const expected = answer.status === 204 ? undefined : [String(Buffer.byteLength(answer.body))];
      expect({ method, status: answer.status, length: answer.headers['content-length'] }).toEqual({ method, status: { GET: 200, POST: 405, OPTIONS: 204 }[method], length: expected });
    }
    // A client reading the 405 to its end is not left waiting for bytes that never come.
    await fetch(`${server.origin}${path}`);
    const post = await fetch(`${server.origin}${path}`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(5_000) });
    expect(await post.json()).toEqual({ message: 'Method not allowed', code: 'METHOD_NOT_SUPPORTED' });
  });

  it('lets a browser on another origin ask with any header but Authorization (MCP clients send MCP-Protocol-Version)', async () => {
    const preflight = await fetch(`${server.origin}${RESOURCE_METADATA_PATH}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://client.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('*');
  });
});

// docs/contract.md#challenges: every challenge string, on every face, pointing at the metadata
// the same face serves.
describe.each(FACES)('the challenges on the %s face', (face: Face) => {
  const METADATA = resourceMetadataUrl(RESOURCE);
  const auth = oauth2Bearer({
    flows: { clientCredentials: { tokenUrl: `${ISSUER}/token`, scopes: { 'items:read': 'Read', 'items:write': 'Write', me: 'Me' } } },
    implies: { 'items:write': ['items:read'] },
    resourceMetadata: METADATA,
    verify: Object.assign(
      async (token: string) => {
        if (token === 'expired') throw invalidTokenError('The access token expired');
        // `scopes.acr.age`: the login was `age` seconds ago (10 when absent).
        const [scopes = '', acr, age = '10'] = token.split('.');
        return { scopes: scopes.split('+'), acr, authTime: Math.floor(Date.now() / 1000) - Number(age) };
      },
      { audience: [RESOURCE] },
    ),
  });
  const rt = initTRPC.context<{ req?: unknown }>().meta<{ openapi?: { method: 'GET'; path: `/${string}` } }>().create();
  const router = rt.router({
    items: rt.procedure
      .meta({ openapi: { method: 'GET', path: '/items' } })
      .use(auth.withScopes('items:read', 'me'))
      .input(z.void())
      .output(z.string())
      .query(() => 'items'),
    transfer: rt.procedure
      .meta({ openapi: { method: 'GET', path: '/transfer' } })
      .use(auth)
      .use(requireAuthentication({ acrValues: ['mfa'] }, { resourceMetadata: METADATA }))
      .input(z.void())
      .output(z.string())
      .query(() => 'moved'),
    recent: rt.procedure
      .meta({ openapi: { method: 'GET', path: '/recent' } })
      .use(auth)
      .use(requireAuthentication({ maxAge: 300 }, { resourceMetadata: METADATA }))
      .input(z.void())
      .output(z.string())
      .query(() => 'fresh'),
  });
  let server: RunningFace;
  beforeAll(async () => {
    const metadata = protectedResourceMetadata(router, { resource: RESOURCE, authorizationServers: [ISSUER] });
    server = (await serveFaces(router, [face], { resourceMetadata: metadata }))[face];
  });
  afterAll(() => server.close());

  const url = (path: 'items' | 'transfer' | 'recent') => (isRest(face) ? `${server.origin}/api/${path}` : `${server.origin}/trpc/${path}`);
  it.each([
    ['items', undefined, 401, `Bearer resource_metadata="${METADATA}"`],
    ['items', 'expired', 401, `Bearer error="invalid_token", error_description="The access token expired", resource_metadata="${METADATA}"`],
    ['items', 'me', 403, `Bearer error="insufficient_scope", scope="items:read me", resource_metadata="${METADATA}"`],
    ['items', 'items:write+me', 200, null],
    ['transfer', 'me.pwd', 401, `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="mfa", resource_metadata="${METADATA}"`],
    ['transfer', 'me.mfa', 200, null],
    ['recent', 'me.pwd.10', 200, null],
    ['recent', 'me.pwd.3600', 401, `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", max_age="300", resource_metadata="${METADATA}"`],
  ] as const)('%s with token %s → %i %s', async (path, token, status, challenge) => {
    const response = await fetch(url(path), { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
    expect({ status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({ status, challenge });
    // The metadata the challenge names is served by the same face.
    if (challenge !== null) expect((await fetch(`${server.origin}${new URL(METADATA).pathname}`)).status).toBe(200);
  });
});
