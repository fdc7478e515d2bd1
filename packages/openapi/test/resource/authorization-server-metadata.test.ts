// RFC 8414 metadata of an application's own token endpoint, served by every handler at the
// issuer's well-known path (docs/contract.md#authorization-server-metadata).
import { authorizationServerMetadata, revocationEndpoint, tokenEndpoint, type AuthorizationServerMetadata } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '@trpc-oauth2/test-kit';
import { AUTHORIZATION_SERVER_METADATA_PATH, authorizationServerMetadataPath, protectedResourceMetadata, RESOURCE_METADATA_PATH } from '../../src/index.js';
import { FACES, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req?: unknown }>().meta<{ openapi?: { method: 'POST'; path: `/${string}` } }>().create();
const authenticateClient = () => ({ clientId: 'app' });
const token = tokenEndpoint(t.procedure, { authenticateClient })
  .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' as const, expires_in: 60 }))
  .build();
const revoke = revocationEndpoint(t.procedure, { authenticateClient, tokenTypes: ['refresh_token'], revoke: () => undefined });
const router = t.router({ token, revoke });

describe('the well-known path of an issuer (RFC 8414 §3.1)', () => {
  it('is the well-known path, then the issuer’s path', () => {
    expect(authorizationServerMetadataPath('https://as.example')).toBe(AUTHORIZATION_SERVER_METADATA_PATH);
    expect(authorizationServerMetadataPath('https://as.example/')).toBe(AUTHORIZATION_SERVER_METADATA_PATH);
    expect(authorizationServerMetadataPath('https://as.example/tenant/a')).toBe(`${AUTHORIZATION_SERVER_METADATA_PATH}/tenant/a`);
  });

  it('drops a terminating / of the issuer’s path first', () => {
    expect(authorizationServerMetadataPath('https://as.example/tenant/')).toBe(`${AUTHORIZATION_SERVER_METADATA_PATH}/tenant`);
  });
});

describe.each(FACES)('served on the %s face', (face: Face) => {
  let server: RunningFace;
  let metadata: AuthorizationServerMetadata;
  let tenant: RunningFace;
  let tenantMetadata: AuthorizationServerMetadata;
  beforeAll(async () => {
    metadata = authorizationServerMetadata({
      issuer: 'http://127.0.0.1',
      token: { procedure: token, url: 'http://127.0.0.1/api/token' },
      revocation: { procedure: revoke, url: 'http://127.0.0.1/api/revoke' },
    });
    // An issuer whose path ends in `/`: published so, served without it (RFC 8414 §3.1, §3.3).
    tenantMetadata = authorizationServerMetadata({ issuer: 'http://127.0.0.1/tenant/', token: { procedure: token, url: 'http://127.0.0.1/tenant/token' } });
    server = (await serveFaces(router, [face], { authorizationServerMetadata: metadata }))[face];
    tenant = (await serveFaces(router, [face], { authorizationServerMetadata: tenantMetadata }))[face];
  });
  afterAll(async () => {
    await server.close();
    await tenant.close();
  });

  it('GET answers 200 with the metadata, readable from any origin, at the issuer’s well-known path', async () => {
    const response = await fetch(`${server.origin}${AUTHORIZATION_SERVER_METADATA_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual(metadata);
    expect((await fetch(`${server.origin}${AUTHORIZATION_SERVER_METADATA_PATH}`, { method: 'OPTIONS' })).status).toBe(204);
    expect((await fetch(`${server.origin}${AUTHORIZATION_SERVER_METADATA_PATH}`, { method: 'POST', body: '{}' })).status).toBe(405);
  });

  it('frames each answer by its own body, after a GET as before it (a runtime may write into the headers it is given)', async () => {
    for (const method of ['GET', 'POST', 'OPTIONS']) {
      const answer = await rawRequest(server.origin, { method, path: AUTHORIZATION_SERVER_METADATA_PATH, ...(method === 'POST' ? { body: '{}' } : {}) });
      const expected = answer.status === 204 ? undefined : [String(Buffer.byteLength(answer.body))];
      expect({ method, status: answer.status, length: answer.headers['content-length'] }).toEqual({ method, status: { GET: 200, POST: 405, OPTIONS: 204 }[method], length: expected });
    }
  });

  it('for an issuer with a path, at the well-known path with that path appended, and only there', async () => {
    const response = await fetch(`${tenant.origin}${AUTHORIZATION_SERVER_METADATA_PATH}/tenant`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(tenantMetadata);
    expect(tenantMetadata.issuer).toBe('http://127.0.0.1/tenant/');
    expect((await fetch(`${tenant.origin}${AUTHORIZATION_SERVER_METADATA_PATH}`)).status).toBe(404);
  });

  it('serves what was built, whatever code tried to change the metadata since (it is frozen, deeply)', async () => {
    const built = authorizationServerMetadata({
      issuer: 'http://127.0.0.1',
      token: { procedure: token, url: 'http://127.0.0.1/api/token' },
      revocation: { procedure: revoke, url: 'http://127.0.0.1/api/revoke' },
      extra: { mtls_endpoint_aliases: { token_endpoint: 'http://127.0.0.1/mtls/token' } },
    });
    const expected = structuredClone(built);
    // What a request's code could do with the object it was handed; each attempt throws.
    const writable = built as Record<string, unknown>;
    const attempts = [
      () => (writable.token_endpoint = 'https://evil.example/token'),
      () => delete writable.revocation_endpoint,
      () => (built.grant_types_supported as string[]).push('password'),
      () => ((built.mtls_endpoint_aliases as Record<string, string>).token_endpoint = 'https://evil.example/token'),
    ];
    for (const attempt of attempts) expect(attempt).toThrow(TypeError);
    const served = (await serveFaces(router, [face], { authorizationServerMetadata: built }))[face];
    try {
      expect(await (await fetch(`${served.origin}${AUTHORIZATION_SERVER_METADATA_PATH}`)).json()).toEqual(expected);
    } finally {
      await served.close();
    }
  });

  it('beside the protected resource metadata, each at its own path', async () => {
    const resource = protectedResourceMetadata(router, { resource: 'http://127.0.0.1/api', authorizationServers: ['http://127.0.0.1'] });
    const both = (await serveFaces(router, [face], { resourceMetadata: resource, authorizationServerMetadata: metadata }))[face];
    try {
      expect(await (await fetch(`${both.origin}${RESOURCE_METADATA_PATH}/api`)).json()).toEqual(resource);
      expect(await (await fetch(`${both.origin}${AUTHORIZATION_SERVER_METADATA_PATH}`)).json()).toEqual(metadata);
    } finally {
      await both.close();
    }
  });
});
