// A principal's `claims` hold what their type says: jwtVerifier's are typed `JWTPayload`
// (RFC 7519 §4.1: `aud` a string or an array of strings, `jti` a string, `iat`, `exp`, `nbf`
// numbers), introspectionVerifier's `IntrospectionResponse` (RFC 7662 §2.2). A registered claim
// of another type refuses the token as malformed, never as another issuer's or audience's
// (docs/contract.md#verified-readers).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { introspectionVerifier, TOKEN_REFUSALS } from '../src/index.js';
import { outcomeOf, refusalOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const now = () => Math.floor(Date.now() / 1000);

const keys = await generateKeyPair('ES256');
const claims = (overrides: Record<string, unknown> = {}): JWTPayload => ({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', exp: now() + 600, scope: 'me', ...overrides });
const sign = (payload: JWTPayload) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256' }).sign(keys.privateKey);

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  const verify = jwtVerifier({ key: keys.publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE });

  it.each<[string, Record<string, unknown>, string]>([
    ['an aud array naming this resource beside a number', { aud: [AUDIENCE, 42] }, TOKEN_REFUSALS.invalid],
    ['an aud array naming this resource beside null', { aud: [AUDIENCE, null] }, TOKEN_REFUSALS.invalid],
    ['an aud array naming this resource beside an object', { aud: [{ evil: true }, AUDIENCE] }, TOKEN_REFUSALS.invalid],
    ['an aud array holding this resource as an array', { aud: [[AUDIENCE]] }, TOKEN_REFUSALS.invalid],
    ['a jti that is a number', { jti: 7 }, TOKEN_REFUSALS.invalid],
    ['a jti that is an object', { jti: { id: 'x' } }, TOKEN_REFUSALS.invalid],
    ['a jti that is null', { jti: null }, TOKEN_REFUSALS.invalid],
    ['an iat that is a string', { iat: 'yesterday' }, TOKEN_REFUSALS.invalid],
    ['an nbf that is a string', { nbf: String(now() - 10) }, TOKEN_REFUSALS.invalid],
    ['an exp that is a string', { exp: String(now() + 600) }, TOKEN_REFUSALS.invalid],
    ['an iss that is an array', { iss: [ISSUER] }, TOKEN_REFUSALS.invalid],
    ['an aud that is a number', { aud: 42 }, TOKEN_REFUSALS.invalid],
    ['a sub that is a number', { sub: 5 }, TOKEN_REFUSALS.invalid],
  ])('refuses %s', async (_name, overrides, description) => {
    expect(await refusalOf(verify(await sign(claims(overrides))))).toBe(description);
  });

  it('accepts the registered claims with their types, and returns them as they are', async () => {
    const payload = claims({ aud: ['https://other.example', AUDIENCE], jti: 'id-1', iat: now(), nbf: now() - 5 });
    const principal = await verify(await sign(payload));
    expect(principal.claims).toEqual(payload);
    const { aud, jti } = principal.claims;
    expect(Array.isArray(aud) && aud.every((entry) => typeof entry === 'string')).toBe(true);
    expect(typeof jti).toBe('string');
    // Claims no RFC registers are the issuer's: whatever their type, they pass as they are.
    expect((await verify(await sign(claims({ tenant: 42, roles: [1, 'a'] })))).claims).toMatchObject({ tenant: 42, roles: [1, 'a'] });
  });
});

describe('introspectionVerifier', () => {
  let server: Server;
  let endpoint: string;
  let answer: unknown;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const verifier = () => introspectionVerifier({ endpoint, clientId: 'api', clientSecret: 's', audience: AUDIENCE, timeout: 2_000 });

  it.each<[string, Record<string, unknown>, string]>([
    ['an iat that is a string', { iat: 'yesterday' }, TOKEN_REFUSALS.invalid],
    ['a username that is an object', { username: { name: 'x' } }, TOKEN_REFUSALS.invalid],
    ['a username that is a number', { username: 1 }, TOKEN_REFUSALS.invalid],
    ['a jti that is a number', { jti: 12 }, TOKEN_REFUSALS.invalid],
    ['a jti that is null', { jti: null }, TOKEN_REFUSALS.invalid],
    ['an aud array naming this resource beside an object', { aud: [AUDIENCE, { evil: true }] }, TOKEN_REFUSALS.invalid],
    ['an aud array naming this resource beside a number', { aud: [AUDIENCE, 7] }, TOKEN_REFUSALS.invalid],
    ['an aud that is an object', { aud: { id: AUDIENCE } }, TOKEN_REFUSALS.invalid],
    ['a client_id that is a number', { client_id: 3 }, TOKEN_REFUSALS.invalid],
    ['an nbf that is a string', { nbf: 'now' }, TOKEN_REFUSALS.invalid],
  ])('refuses an active answer with %s', async (_name, members, description) => {
    answer = { active: true, aud: AUDIENCE, scope: 'me', ...members };
    expect(await refusalOf(verifier()('tok'))).toBe(description);
  });

  it('accepts an active answer whose members have the types IntrospectionResponse declares, and returns them as they are', async () => {
    answer = {
      active: true, aud: ['https://other.example', AUDIENCE], scope: 'me', iat: now(), exp: now() + 60, nbf: now() - 1,
      username: 'alice', jti: 'id-1', sub: 'u1', client_id: 'app', iss: ISSUER, token_type: 'Bearer', extension: { any: 1 },
    };
    const outcome = await outcomeOf(verifier()('tok'));
    expect(outcome.kind).toBe('accepted');
    if (outcome.kind !== 'accepted') return;
    expect(outcome.principal.claims).toEqual(answer);
  });
});
