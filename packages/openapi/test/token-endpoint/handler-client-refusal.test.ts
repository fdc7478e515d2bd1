import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { tokenRouter } from './token-router.js';

// docs/contract.md#client-authentication: RFC 6749 §5.2 asks for `WWW-Authenticate` on every 401
// `invalid_client` answered to a client that authenticated with the `Authorization` header. A
// grant's handler or `revoke` that refuses the client itself (`tokenError('invalid_client', …)`,
// without `challenge`) is answered so too; a client that sent its credentials in the form still
// gets no challenge.

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(tokenRouter, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(faces).map((running) => running.close()));
});

const basic = (id: string, secret: string) => `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

async function post(face: Face, procedure: 'token' | 'revoke', fields: Record<string, string>, headers: Record<string, string>) {
  const running = faces[face];
  const url = isRest(face) ? `${running.origin}/api/${procedure}` : `${running.origin}/trpc/${procedure}`;
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(fields), headers });
  const json: any = await response.json();
  const body = isRest(face) ? json : { error: json.error?.data?.oauth2?.error, error_description: json.error?.data?.oauth2?.error_description };
  return { status: response.status, challenge: response.headers.get('www-authenticate'), cacheControl: response.headers.get('cache-control'), body };
}

const SUSPENDED = { grant_type: 'password', username: 'suspended', password: 'wonderland' };

describe.each(FACES)("a handler's own invalid_client on %s", (face) => {
  it.each<[string, 'token' | 'revoke', Record<string, string>, Record<string, string>, string | null]>([
    ['a grant handler, to a client over Basic: the Basic challenge', 'token', SUSPENDED, { authorization: basic('app', 's3cret') }, 'Basic'],
    ['a grant handler, to a client over Basic with its id in the form too', 'token', { ...SUSPENDED, client_id: 'app' }, { authorization: basic('app', 's3cret') }, 'Basic'],
    ['a grant handler, to a client in the form: no challenge', 'token', { ...SUSPENDED, client_id: 'app', client_secret: 's3cret' }, {}, null],
    ['a grant handler, to a public client: no challenge', 'token', SUSPENDED, {}, null],
    ['revoke, to a client over Basic: the Basic challenge', 'revoke', { token: 'suspended' }, { authorization: basic('app', 's3cret') }, 'Basic'],
    ['revoke, to a client in the form: no challenge', 'revoke', { token: 'suspended', client_id: 'app', client_secret: 's3cret' }, {}, null],
  ])('%s', async (_name, procedure, fields, headers, challenge) => {
    const answer = await post(face, procedure, fields, headers);
    expect(answer).toEqual({
      status: 401,
      challenge,
      cacheControl: 'no-store',
      body: { error: 'invalid_client', error_description: 'This client is suspended' },
    });
  });
});
