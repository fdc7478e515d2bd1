/**
 * `@trpc-oauth2/test-kit/authorization-server`: a real authorization server (oidc-provider on
 * loopback) for the tests that talk to one: client credentials, JWT and opaque access tokens by
 * resource, introspection, revocation, key rotation and DPoP-bound tokens. An entry of its own,
 * so the rest of the kit loads without oidc-provider.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import Provider from 'oidc-provider';

/** A resource whose access tokens are RFC 9068 JWTs, signed RS256. */
export const JWT_RESOURCE = 'https://api.example/jwt';
/** A resource of another API: JWTs too, with its own audience. */
export const FOREIGN_RESOURCE = 'https://other.example/api';
/** A resource whose access tokens are opaque: only introspection can tell. */
export const OPAQUE_RESOURCE = 'https://api.example/opaque';

/** The client that asks for tokens (client credentials). */
export const APP = { id: 'app', secret: 'app-secret-with-enough-entropy-0123456789' } as const;
/**
 * The resource server's own client, which introspects: its id and secret hold characters that
 * RFC 6749 §2.3.1 form-urlencodes before Basic (`:` in the id, space, `+`, `%`, `&`, `=` in the secret).
 */
export const API = { id: 'api:server', secret: 'api secret+%/&= 0123456789' } as const;

export interface StartOptions {
  /** Seconds an access token lives (JWT and opaque). Default 300. */
  accessTokenTTL?: number;
}

/** An oidc-provider authorization server on 127.0.0.1, on a port the OS picks. */
export interface AuthorizationServer {
  readonly issuer: string;
  readonly jwksUrl: string;
  readonly introspectionUrl: string;
  /** How many times the key set was fetched. */
  readonly jwksRequests: number;
  /** The `kid` the server signs with now. */
  readonly kid: string;
  /** A client-credentials access token for `resource`, with `scope`. */
  token(resource: string, scope?: string): Promise<string>;
  /**
   * A client-credentials access token for `resource` bound to the key of `dpop` (RFC 9449: its
   * `cnf.jkt`), asked for by oauth4webapi's DPoP client with a proof by that key.
   */
  dpopToken(resource: string, dpop: oauth.DPoPHandle, scope?: string): Promise<string>;
  /**
   * A refresh token of `resource` for the user `alice`, as an authorization code grant with
   * `offline_access` leaves it, minted by the provider's own models (no login form to fill).
   */
  refreshToken(resource: string): Promise<string>;
  /** Revokes a token at the revocation endpoint (RFC 7009), as the client it was issued to. */
  revoke(token: string): Promise<void>;
  /** A new signing key (new `kid`) on the same port; the old key stays in the key set. */
  rotateKey(): Promise<void>;
  /** The key set endpoint answers 500 while this is true. */
  breakJwks(broken: boolean): void;
  close(): Promise<void>;
}

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

function configuration(keys: JWK[], ttl: number): Record<string, unknown> {
  const resources: Record<string, Record<string, unknown>> = {
    [JWT_RESOURCE]: { scope: 'read write', audience: JWT_RESOURCE, accessTokenFormat: 'jwt', accessTokenTTL: ttl, jwt: { sign: { alg: 'RS256' } } },
    [FOREIGN_RESOURCE]: { scope: 'read write', audience: FOREIGN_RESOURCE, accessTokenFormat: 'jwt', accessTokenTTL: ttl, jwt: { sign: { alg: 'RS256' } } },
    [OPAQUE_RESOURCE]: { scope: 'read write', audience: OPAQUE_RESOURCE, accessTokenFormat: 'opaque', accessTokenTTL: ttl },
  };
  return {
    jwks: { keys },
    clients: [
      { client_id: APP.id, client_secret: APP.secret, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'read write' },
      { client_id: API.id, client_secret: API.secret, grant_types: ['client_credentials'], response_types: [], redirect_uris: [] },
    ],
    // offline_access makes it a server that issues refresh tokens (oidc-provider enables the grant then).
    scopes: ['openid', 'offline_access', 'read', 'write'],
    ttl: { ClientCredentials: ttl },
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async (_ctx: unknown, client: { clientId: string }) => client.clientId === API.id },
      revocation: { enabled: true, allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId: string }) => client.clientId === token.clientId },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => undefined,
        useGrantedResource: async () => false,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => {
          const info = resources[resource];
          if (!info) throw new Error('unknown resource');
          return info;
        },
      },
    },
  };
}

/** Starts the authorization server; the caller must `close()` it. */
export async function startAuthorizationServer(options: StartOptions = {}): Promise<AuthorizationServer> {
  const ttl = options.accessTokenTTL ?? 300;
  const keys = [await signingKey()];
  // The next key is made ahead: an RSA key takes up to seconds on a loaded machine, which would
  // eat the key set cooldown a rotation test measures.
  let nextKey = signingKey();
  let jwksRequests = 0;
  let jwksBroken = false;
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let provider: Provider;

  const server = createServer((req, res) => {
    if (req.url?.startsWith('/jwks')) {
      jwksRequests++;
      if (jwksBroken) {
        res.writeHead(500).end();
        return;
      }
    }
    handler!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const install = () => {
    provider = new Provider(issuer, configuration(keys, ttl));
    handler = provider.callback();
  };
  install();

  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    introspectionUrl: `${issuer}/token/introspection`,
    get jwksRequests() {
      return jwksRequests;
    },
    get kid() {
      return keys[0]!.kid!;
    },
    async token(resource, scope = 'read write') {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: basic(APP.id, APP.secret) },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (response.status !== 200 || !body.access_token) throw new Error(`token endpoint: ${response.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async dpopToken(resource, dpop, scope = 'read write') {
      const as: oauth.AuthorizationServer = { issuer, token_endpoint: `${issuer}/token` };
      const client: oauth.Client = { client_id: APP.id };
      const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(APP.secret), new URLSearchParams({ resource, scope }), {
        DPoP: dpop,
        [oauth.allowInsecureRequests]: true,
      });
      const body = await oauth.processClientCredentialsResponse(as, client, response);
      if (body.token_type !== 'dpop') throw new Error(`token endpoint: a ${body.token_type} token, not a DPoP-bound one`);
      return body.access_token;
    },
    async refreshToken(resource) {
      const grant = new provider.Grant({ accountId: 'alice', clientId: APP.id });
      grant.addOIDCScope('openid offline_access');
      grant.addResourceScope(resource, 'read');
      const grantId = await grant.save();
      const client = await provider.Client.find(APP.id);
      if (client === undefined) throw new Error(`client ${APP.id} is not registered`);
      return new provider.RefreshToken({
        accountId: 'alice', client, grantId, gty: 'authorization_code', scope: 'openid offline_access read', resource,
      }).save();
    },
    async revoke(token) {
      const response = await fetch(`${issuer}/token/revocation`, {
        method: 'POST',
        headers: { authorization: basic(APP.id, APP.secret) },
        body: new URLSearchParams({ token }),
      });
      if (response.status !== 200) throw new Error(`revocation endpoint: ${response.status} ${await response.text()}`);
    },
    async rotateKey() {
      keys.unshift(await nextKey);
      nextKey = signingKey();
      install();
    },
    breakJwks(broken) {
      jwksBroken = broken;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
