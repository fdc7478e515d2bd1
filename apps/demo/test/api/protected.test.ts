import { beforeAll, describe, expect, it, vi } from 'vitest';
import { demoClient, refusalOf } from '../../src/client/demo-client.js';
import { demoForThisFile, SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { bearer, login, request } from '../support/http.js';
import { hmacWithPublicKey, readStoredKey, signWithAnotherKey, signWithServerKey, unsignedToken, validClaims } from '../support/tokens.js';
import { TOKEN_REFUSALS } from '@trpc-oauth2/jwt';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();
let aliceToken: string;
let bobToken: string;
beforeAll(async () => {
  [aliceToken, bobToken] = await Promise.all([
    login(demo.url, 'alice', 'wonderland').then((t) => t.access_token),
    login(demo.url, 'bob', 'builder').then((t) => t.access_token),
  ]);
}, SERVER_TIMEOUT_MS);

const NOT_ENOUGH = 'Bearer error="insufficient_scope", scope="me items"';
const NO_CREDENTIALS = 'Bearer, DPoP algs="ES256 EdDSA Ed25519 PS256 RS256"';
const invalid = (description: string) => `Bearer error="invalid_token", error_description="${description}"`;

describe('protected operations over REST and tRPC', () => {
  it('GET /api/users/me answers the user behind the token', async () => {
    const { status, body } = await request(`${demo.url}/api/users/me`, { headers: bearer(aliceToken) });
    expect(status).toBe(200);
    expect(body).toEqual({ username: 'alice', fullName: 'Alice Liddell', email: 'alice@example.com', scopes: ['me', 'items'] });
  });

  it('GET /api/users/me/items answers the user’s items', async () => {
    const { status, body } = await request(`${demo.url}/api/users/me/items`, { headers: bearer(aliceToken) });
    expect(status).toBe(200);
    expect(body.map((item: { title: string }) => item.title)).toEqual(['Pocket watch', 'Looking glass', 'Jar of orange marmalade']);
  });

  it('answers the same over tRPC, typed', async () => {
    const client = demoClient(demo.url, () => aliceToken);
    expect((await client.users.me.query()).username).toBe('alice');
    expect(await client.users.items.query()).toHaveLength(3);
  });

  it.each([
    ['REST', (token: string) => request(`${demo.url}/api/users/me/items`, { headers: bearer(token) })],
    ['tRPC', (token: string) => request(`${demo.url}/trpc/users.items`, { headers: bearer(token) })],
  ])('refuses a token without a required scope with 403 insufficient_scope (%s)', async (_face, call) => {
    const response = await call(bobToken);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(NOT_ENOUGH);
    // bob's token does carry `me`: the chain stops at `items`.
    expect((await request(`${demo.url}/api/users/me`, { headers: bearer(bobToken) })).status).toBe(200);
  });

  it('refuses a token granted only `items` on both operations (the base scope `me` is required first)', async () => {
    const { access_token } = await login(demo.url, 'alice', 'wonderland', 'items');
    const me = await request(`${demo.url}/api/users/me`, { headers: bearer(access_token) });
    expect(me.status).toBe(403);
    expect(me.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="me"');
    expect((await request(`${demo.url}/api/users/me/items`, { headers: bearer(access_token) })).headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="me"',
    );
  });

  it('gives tRPC clients the stable code of a refusal', async () => {
    const refusal = await refusalOf(demoClient(demo.url, () => bobToken).users.items.query());
    expect(refusal).toEqual({ status: 403, code: 'ERR_INSUFFICIENT_SCOPE', message: 'Not enough permissions', wwwAuthenticate: NOT_ENOUGH });
  });
});

describe('tokens that are refused with 401', () => {
  const cases: [string, () => Promise<string | undefined>, string, string][] = [
    // The API takes DPoP-bound tokens too (RFC 9449 §7.1): both schemes are offered.
    ['no Authorization header', async () => undefined, NO_CREDENTIALS, 'Not authenticated'],
    ['another scheme', async () => 'Basic YWxpY2U6d29uZGVybGFuZA==', NO_CREDENTIALS, 'Not authenticated'],
    ['an empty bearer token', async () => 'Bearer', invalid(TOKEN_REFUSALS.invalid), TOKEN_REFUSALS.invalid],
    ['garbage', async () => 'Bearer not-a-jwt', invalid(TOKEN_REFUSALS.invalid), TOKEN_REFUSALS.invalid],
    ['an expired token', async () => `Bearer ${await signWithServerKey(demo.dataDir, { ...validClaims(), iat: 1, nbf: 1, exp: 2 })}`, invalid(TOKEN_REFUSALS.expired), TOKEN_REFUSALS.expired],
    ['a token not valid yet (nbf in the future)', async () => `Bearer ${await signWithServerKey(demo.dataDir, { ...validClaims(), nbf: validClaims().exp })}`, invalid(TOKEN_REFUSALS.notYetValid), TOKEN_REFUSALS.notYetValid],
    ['a token issued in the future (iat)', async () => `Bearer ${await signWithServerKey(demo.dataDir, { ...validClaims(), iat: validClaims().exp })}`, invalid(TOKEN_REFUSALS.notYetValid), TOKEN_REFUSALS.notYetValid],
    ['a token issued and valid only in the future (iat and nbf)', async () => {
      const { exp } = validClaims();
      return `Bearer ${await signWithServerKey(demo.dataDir, { ...validClaims(), iat: exp, nbf: exp, exp: exp! + 600 })}`;
    }, invalid(TOKEN_REFUSALS.notYetValid), TOKEN_REFUSALS.notYetValid],
    ['a token older than the access-token lifetime, whatever its exp says', async () => {
      const { iat } = validClaims();
      return `Bearer ${await signWithServerKey(demo.dataDir, { ...validClaims(), iat: iat! - 3600, nbf: iat! - 3600 })}`;
    }, invalid(TOKEN_REFUSALS.tooOld), TOKEN_REFUSALS.tooOld],
    ['another audience', async () => `Bearer ${await signWithServerKey(demo.dataDir, { ...validClaims(), aud: 'urn:elsewhere' })}`, invalid(TOKEN_REFUSALS.audience), TOKEN_REFUSALS.audience],
    ['another issuer', async () => `Bearer ${await signWithServerKey(demo.dataDir, { ...validClaims(), iss: 'urn:elsewhere' })}`, invalid(TOKEN_REFUSALS.issuer), TOKEN_REFUSALS.issuer],
    ['no scope claim', async () => `Bearer ${await signWithServerKey(demo.dataDir, { ...validClaims(), scope: undefined })}`, invalid(TOKEN_REFUSALS.claims), TOKEN_REFUSALS.claims],
    ['another token type', async () => `Bearer ${await signWithServerKey(demo.dataDir, validClaims(), { typ: 'JWT' })}`, invalid(TOKEN_REFUSALS.type), TOKEN_REFUSALS.type],
    ['alg none, with the server key id', async () => `Bearer ${unsignedToken(validClaims(), (await readStoredKey(demo.dataDir)).kid)}`, invalid(TOKEN_REFUSALS.algorithm), TOKEN_REFUSALS.algorithm],
    ['alg none, without a key id', async () => `Bearer ${unsignedToken(validClaims())}`, invalid(TOKEN_REFUSALS.algorithm), TOKEN_REFUSALS.algorithm],
    ['a token of another key', async () => `Bearer ${await signWithAnotherKey(validClaims())}`, invalid(TOKEN_REFUSALS.signature), TOKEN_REFUSALS.signature],
    ['HS256 keyed with the public key', async () => `Bearer ${await hmacWithPublicKey(demo.dataDir, validClaims())}`, invalid(TOKEN_REFUSALS.algorithm), TOKEN_REFUSALS.algorithm],
    ['a tampered payload', async () => {
      const [header, , signature] = aliceToken.split('.');
      const payload = Buffer.from(JSON.stringify({ ...validClaims('bob'), scope: 'me items' })).toString('base64url');
      return `Bearer ${header}.${payload}.${signature}`;
    }, invalid(TOKEN_REFUSALS.signature), TOKEN_REFUSALS.signature],
    ['a user that does not exist', async () => `Bearer ${await signWithServerKey(demo.dataDir, validClaims('mallory'))}`, invalid('The user of this token no longer exists'), 'The user of this token no longer exists'],
  ];

  it.each(cases)('%s', async (_name, authorization, challenge, message) => {
    const header = await authorization();
    const headers: Record<string, string> = header === undefined ? {} : { authorization: header };
    const rest = await request(`${demo.url}/api/users/me`, { headers });
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toBe(challenge);
    expect(rest.body.message).toBe(message);
    const trpc = await request(`${demo.url}/trpc/users.me`, { headers });
    expect(trpc.status).toBe(401);
    expect(trpc.headers.get('www-authenticate')).toBe(challenge);
  });

  it('accepts a token the test signs with the server key, proving the refusals above are about one change each', async () => {
    const token = await signWithServerKey(demo.dataDir, validClaims('bob', 'me'));
    expect((await request(`${demo.url}/api/users/me`, { headers: bearer(token) })).body.username).toBe('bob');
  });
});
