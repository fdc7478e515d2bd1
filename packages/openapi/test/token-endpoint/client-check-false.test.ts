/**
 * docs/contract.md#client-authentication: `authenticateClient` refuses a client by answering
 * `null`, `undefined` or `false`. A check written as a comparison (`secret === stored`) answers
 * `false` for a wrong secret: that is a 401 `invalid_client` (with the Basic challenge when the
 * client used Basic), on every face, at the token and the revocation endpoint alike, and never a
 * token issued or a token revoked for it.
 */
import { encodeBasicCredentials } from '@trpc-oauth2/core/protocol';
import { oauth2ErrorData, revocationEndpoint, tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

// The whole client check is one comparison: `true` for the one client and its secret, `false` otherwise.
const authenticateClient = ({ clientId, clientSecret }: { clientId: string | null; clientSecret: string | null }) =>
  clientId === 'app' && clientSecret === 's3cret';

const issued: string[] = [];
const revoked: string[] = [];
const router = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient })
    .grant('client_credentials', ({ client }) => {
      // The client the check answered: `true`, never `false`.
      const client_: true = client;
      issued.push(String(client_));
      return { access_token: 'at-app', token_type: 'Bearer' };
    })
    .build(),
  revoke: revocationEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/revoke' } }), {
    authenticateClient,
    tokenTypes: ['refresh_token'],
    revoke: ({ form }) => void revoked.push(form.token),
  }),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(faces).map((running) => running.close()));
});

/** Posts a urlencoded form; the refusal read as RFC 6749 §5.2 says, whatever the face. */
async function post(face: Face, procedure: 'token' | 'revoke', fields: Record<string, string>, headers: Record<string, string> = {}) {
  const running = faces[face];
  const url = isRest(face) ? `${running.origin}/api/${procedure}` : `${running.origin}/trpc/${procedure}`;
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(fields), headers });
  const json: any = await response.json();
  const body = isRest(face) ? json : json.error ? { error: json.error.data.oauth2.error, error_description: json.error.data.oauth2.error_description } : json.result.data;
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body };
}

const refused = (challenge: string | null) => ({
  status: 401,
  challenge,
  body: { error: 'invalid_client', error_description: 'Client authentication failed' },
});

describe.each(FACES)('a client check that answers false, on %s', (face) => {
  it('refuses a wrong secret over Basic with 401 invalid_client and the Basic challenge, and issues nothing', async () => {
    issued.length = 0;
    const basic = `Basic ${encodeBasicCredentials('app', 'wrong')}`;
    expect(await post(face, 'token', { grant_type: 'client_credentials' }, { authorization: basic })).toEqual(refused('Basic'));
    expect(issued).toEqual([]);
  });

  it('refuses a wrong secret in the form, and a request without credentials, with 401 invalid_client and no challenge', async () => {
    issued.length = 0;
    expect(await post(face, 'token', { grant_type: 'client_credentials', client_id: 'app', client_secret: 'wrong' })).toEqual(refused(null));
    expect(await post(face, 'token', { grant_type: 'client_credentials' })).toEqual(refused(null));
    expect(issued).toEqual([]);
  });

  it('refuses to revoke for a client it answered false for', async () => {
    revoked.length = 0;
    expect(await post(face, 'revoke', { token: 'rt-1', client_id: 'app', client_secret: 'wrong' })).toEqual(refused(null));
    expect(revoked).toEqual([]);
  });

  it('serves the client it answered true for', async () => {
    issued.length = 0;
    revoked.length = 0;
    const basic = `Basic ${encodeBasicCredentials('app', 's3cret')}`;
    expect(await post(face, 'token', { grant_type: 'client_credentials' }, { authorization: basic })).toMatchObject({ status: 200, body: { access_token: 'at-app' } });
    expect(await post(face, 'revoke', { token: 'rt-1' }, { authorization: basic })).toMatchObject({ status: 200, body: {} });
    expect(issued).toEqual(['true']);
    expect(revoked).toEqual(['rt-1']);
  });
});
