import { decodeJwt } from 'jose';
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';
import { aliceCode, authorizeOverHttp, pkcePair, redeemCode } from '../support/authorization-code.js';
import { bearer, login, postToken, request } from '../support/http.js';
import { postgresBinForTests } from '../support/postgres.js';
import { startTwoDemos, type TwoDemos } from '../support/two-demos.js';
import { dpopKey, dpopLogin, dpopProof } from '../support/dpop.js';

// Two demo servers on one PostgreSQL server (DATABASE_URL): refresh rotation, revocation and the
// login throttle hold across them, through row locks in the database, not process memory.
// See docs/contract.md#token-responses.
const bin = await postgresBinForTests('the two-instance tests');
/** The one public URL both servers answer for (A's address), which DPoP proofs name. */
let publicOrigin: string;

/** GET `url` with the `Host` header `host` (fetch does not let one set it). */
const requestWithHost = (url: string, host: string | undefined) =>
  new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest(url, { headers: host === undefined ? {} : { host }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk)).on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject).end();
  });

describe.skipIf(bin === undefined)('two demo servers on one PostgreSQL server', () => {
  const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
  let demos: TwoDemos;
  let a: TestDemo;
  let b: TestDemo;
  beforeAll(async () => {
    demos = await startTwoDemos(bin!, () => ({
      loginThrottle: { username: { maxFailures: 3, windowSeconds: 60 }, address: { maxFailures: 1_000, windowSeconds: 60 }, maxEntries: 1_000 },
      clock: () => clock.now,
    }));
    ({ a, b } = demos);
    // Behind one load balancer: clients name one origin in their DPoP proofs, whichever server answers.
    publicOrigin = demos.origin;
  }, 2 * SERVER_TIMEOUT_MS);
  afterAll(() => demos?.stop(), SERVER_TIMEOUT_MS);

  it('seeds the users once', async () => {
    expect([...a.seeded, ...b.seeded].sort()).toEqual(['alice', 'bob']);
  });

  it('a 20-way concurrent refresh spread over both servers has exactly one winner', async () => {
    const { refresh_token } = await login(a.url, 'alice', 'wonderland');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => postToken((i % 2 === 0 ? a : b).url, { grant_type: 'refresh_token', refresh_token })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(19);
    for (const answer of answers.filter((x) => x.status === 400)) expect(answer.body.error).toBe('invalid_grant');
    // The replays revoked the family: the winner's successor is refused too, on either server.
    const winner = answers.find((answer) => answer.status === 200)!.body.refresh_token as string;
    expect((await postToken(b.url, { grant_type: 'refresh_token', refresh_token: winner })).status).toBe(400);
  }, TEST_TIMEOUT_MS * 3);

  /** A fresh authorization code of `server` for alice, with what redeeming it takes. */
  const codeOn = (server: TestDemo) => aliceCode(server.url);

  it('keeps the authorization server\'s sessions and codes in PostgreSQL: a code is redeemed once', async () => {
    const fields = await codeOn(a);
    const first = await redeemCode(a.url, fields);
    expect(first.status).toBe(200);
    expect((await request(`${a.url}/api/users/me/items`, { headers: bearer(first.body.access_token) })).status).toBe(200);
    expect((await redeemCode(a.url, fields)).body.error).toBe('invalid_grant');
  }, TEST_TIMEOUT_MS * 2);

  // RFC 6749 §4.1.2 and §10.4: a code, and a rotated refresh token, are spent once, however many
  // redemptions race for them on however many servers.
  const ROUNDS = 3;
  const RACERS = 20;
  const refreshOn = async (server: TestDemo, refreshToken: string) => {
    const response = await fetch(`${server.url}/oidc/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'swagger-ui', refresh_token: refreshToken }),
    });
    return { status: response.status, body: await response.json() };
  };

  it(`a code of /oidc redeemed ${RACERS} times at once over both servers has exactly one winner, every round`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const fields = await codeOn(a);
      const answers = await Promise.all(Array.from({ length: RACERS }, (_, i) => redeemCode((i % 2 ? b : a).url, fields)));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200), `round ${round}: ${statuses.join(' ')}`).toHaveLength(1);
      expect(statuses.filter((status) => status === 400)).toHaveLength(RACERS - 1);
      for (const answer of answers.filter((x) => x.status === 400)) expect(answer.body.error).toBe('invalid_grant');
      // The replays revoked the grant: the winner's refresh token is refused too.
      const winner = answers.find((answer) => answer.status === 200)!.body.refresh_token as string;
      expect((await refreshOn(b, winner)).status).toBe(400);
    }
  }, TEST_TIMEOUT_MS * 3);

  it(`a refresh token of /oidc spent ${RACERS} times at once over both servers has exactly one winner, every round`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const first = await redeemCode(a.url, await codeOn(a));
      expect(first.status).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: RACERS }, (_, i) => refreshOn(i % 2 ? b : a, first.body.refresh_token)),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200), `round ${round}: ${statuses.join(' ')}`).toHaveLength(1);
      expect(statuses.filter((status) => status === 400)).toHaveLength(RACERS - 1);
      // No live chain is left: the winner's successor is refused.
      const winner = answers.find((answer) => answer.status === 200)!.body.refresh_token as string;
      expect((await refreshOn(a, winner)).status).toBe(400);
    }
  }, TEST_TIMEOUT_MS * 3);

  // RFC 9449 §11.1: a DPoP proof is accepted once, by every server sharing the database. Each
  // round, one proof comes with redemptions of as many codes, spread over both servers at once.
  it(`a DPoP proof at /oidc/token is accepted once over both servers, one after the other and ${RACERS} at once, every round`, async () => {
    const redemption = async (proof: string) => {
      const fields = await codeOn(a);
      return (server: TestDemo) =>
        request(`${server.url}/oidc/token`, {
          method: 'POST',
          headers: { dpop: proof },
          body: new URLSearchParams({ grant_type: 'authorization_code', client_id: fields.clientId, code: fields.code, redirect_uri: fields.redirectUri, code_verifier: fields.codeVerifier }),
        });
    };
    const newProof = async () => dpopProof(await dpopKey(), 'POST', `${publicOrigin}/oidc/token`);
    const proof = await newProof();
    const first = await (await redemption(proof))(a);
    expect(first.status).toBe(200);
    expect(first.body.token_type).toBe('DPoP');
    const again = await (await redemption(proof))(b);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    for (let round = 0; round < ROUNDS; round++) {
      const shared = await newProof();
      // The codes one after the other (the login throttle counts logins under way), then the redemptions at once.
      const sends = [];
      for (let i = 0; i < RACERS; i++) sends.push(await redemption(shared));
      const answers = await Promise.all(sends.map((send, i) => send(i % 2 ? b : a)));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200), `round ${round}: ${statuses.join(' ')}`).toHaveLength(1);
      expect(statuses.filter((status) => status === 400)).toHaveLength(RACERS - 1);
      for (const answer of answers.filter((x) => x.status === 400)) expect(answer.body.error).toBe('invalid_grant');
    }
  }, TEST_TIMEOUT_MS * 8);

  it('a session stored for a logout request nobody logged in to is kept 10 minutes, not a day', async () => {
    const db = new pg.Client({ connectionString: demos.databaseUrl });
    await db.connect();
    try {
      for (const server of [a, b]) {
        const answer = await fetch(`${server.url}/oidc/session/end`);
        expect(answer.status).toBe(200);
        const id = /^_session=([^;]+)/.exec(answer.headers.getSetCookie().find((line) => line.startsWith('_session=')) ?? '')?.[1];
        expect(id, 'the session cookie').toBeDefined();
        const { rows } = await db.query<{ seconds: number }>(
          `SELECT extract(epoch FROM expires_at - now())::float8 AS seconds FROM oidc_payloads WHERE model = 'Session' AND id = $1`,
          [id],
        );
        expect(rows).toHaveLength(1);
        expect(rows[0]!.seconds).toBeGreaterThan(10 * 60 - 5);
        expect(rows[0]!.seconds).toBeLessThanOrEqual(10 * 60);
      }
    } finally {
      await db.end();
    }
  });

  it('a client one server registered (RFC 7591) logs in through the other, and is kept 30 days', async () => {
    const redirectUri = 'http://127.0.0.1:47914/callback';
    const registration = await fetch(`${b.url}/oidc/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'registered on B', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await registration.json()) as { client_id: string };
    expect(registration.status).toBe(201);
    const pkce = pkcePair();
    const back = await authorizeOverHttp(a.url, { clientId, redirectUri, username: 'alice', password: 'wonderland', scope: 'me', codeChallenge: pkce.challenge });
    const code = back.searchParams.get('code');
    expect(code, back.href).not.toBeNull();
    const redeemed = await redeemCode(b.url, { clientId, code: code!, redirectUri, codeVerifier: pkce.verifier });
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
    expect(decodeJwt(redeemed.body.access_token)).toMatchObject({ sub: 'alice', client_id: clientId });
    const db = new pg.Client({ connectionString: demos.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ seconds: number }>(
        `SELECT extract(epoch FROM expires_at - now())::float8 AS seconds FROM oidc_payloads WHERE model = 'Client' AND id = $1`,
        [clientId],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]!.seconds).toBeGreaterThan(30 * 24 * 60 * 60 - 60);
      expect(rows[0]!.seconds).toBeLessThanOrEqual(30 * 24 * 60 * 60);
    } finally {
      await db.end();
    }
  }, TEST_TIMEOUT_MS);

  it('a refresh of /oidc grants only the scopes the user has now', async () => {
    const first = await redeemCode(a.url, await codeOn(a));
    expect(first.body.scope).toBe('me items');
    const db = new pg.Client({ connectionString: demos.databaseUrl });
    await db.connect();
    try {
      await db.query(`UPDATE users SET scopes = '{me}' WHERE username = 'alice'`);
      const refreshed = await refreshOn(b, first.body.refresh_token);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.scope).toBe('me');
      expect(decodeJwt(refreshed.body.access_token).scope).toBe('me');
      const items = await request(`${a.url}/api/users/me/items`, { headers: bearer(refreshed.body.access_token) });
      expect(items.status).toBe(403);
      // Given back, it comes back at the next refresh: the refresh token still carries it.
      await db.query(`UPDATE users SET scopes = '{me,items}' WHERE username = 'alice'`);
      const again = await refreshOn(a, refreshed.body.refresh_token);
      expect(again.body.scope).toBe('me items');
    } finally {
      await db.query(`UPDATE users SET scopes = '{me,items}' WHERE username = 'alice'`);
      await db.end();
    }
  }, TEST_TIMEOUT_MS * 2);

  it('both servers are one authorization server: a token A issues, B accepts, and discovery is built from the public URL', async () => {
    const issuer = `${a.url}/oidc`;
    const first = await redeemCode(a.url, await codeOn(a));
    expect(decodeJwt(first.body.access_token).iss).toBe(issuer);
    const me = await request(`${b.url}/api/users/me`, { headers: bearer(first.body.access_token) });
    expect({ status: me.status, username: me.body.username }).toEqual({ status: 200, username: 'alice' });
    for (const server of [a, b]) {
      for (const host of [undefined, 'evil.example', 'evil.example:1']) {
        const discovery = await requestWithHost(`${server.url}/oidc/.well-known/openid-configuration`, host);
        expect(discovery.status).toBe(200);
        expect(discovery.body.issuer).toBe(issuer);
        for (const name of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'revocation_endpoint']) {
          expect(discovery.body[name], name).toMatch(new RegExp(`^${issuer.replace(/[.]/g, '\\.')}/`));
        }
      }
    }
  }, TEST_TIMEOUT_MS * 2);

  it('a revocation on one server is seen by the other', async () => {
    const first = await login(a.url, 'bob', 'builder');
    const second = await postToken(a.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(second.status).toBe(200);
    // The spent token replayed on B revokes the family…
    expect((await postToken(b.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token })).status).toBe(400);
    // …so A refuses its live successor.
    const refused = await postToken(a.url, { grant_type: 'refresh_token', refresh_token: second.body.refresh_token });
    expect(refused.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or revoked' });
    // Access tokens one signs, the other accepts.
    expect((await request(`${b.url}/api/users/me`, { headers: bearer(second.body.access_token) })).status).toBe(200);
  }, TEST_TIMEOUT_MS * 2);

  it('the login throttle counts failures across both servers', async () => {
    expect((await postToken(a.url, { username: 'carol', password: 'x' })).status).toBe(400);
    expect((await postToken(b.url, { username: 'carol', password: 'x' })).status).toBe(400);
    expect((await postToken(a.url, { username: 'carol', password: 'x' })).status).toBe(400);
    for (const server of [a, b]) {
      const refused = await postToken(server.url, { username: 'carol', password: 'x' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
    }
    // Concurrent guesses spread over both cannot pass the limit either, whether the username's
    // count exists yet (erin) or not (dave).
    expect((await postToken(b.url, { username: 'erin', password: 'x' })).status).toBe(400);
    for (const [username, left] of [['dave', 3], ['erin', 2]] as const) {
      const guesses = await Promise.all(Array.from({ length: 12 }, (_, i) => postToken((i % 2 ? a : b).url, { username, password: 'x' })));
      expect(guesses.map((g) => g.status).sort()).toEqual([...Array(left).fill(400), ...Array(12 - left).fill(429)]);
    }
  }, TEST_TIMEOUT_MS * 3);

  // The library's token endpoint records a proof before its grant runs (the store can forget one):
  // of refreshes racing with one proof over both servers, one runs its grant, and the others'
  // refresh tokens are not spent for an answer refused after.
  it(`one DPoP proof with ${RACERS} refresh tokens at once over both servers: one is spent, the others stay usable`, async () => {
    const key = await dpopKey();
    const htu = `${publicOrigin}/api/token`;
    const refreshTokens: string[] = [];
    for (let i = 0; i < RACERS; i++) refreshTokens.push((await dpopLogin(a.url, key, 'alice', 'wonderland', publicOrigin)).refresh_token);
    const asked = await postToken(a.url, { grant_type: 'refresh_token', refresh_token: refreshTokens[0]! }, { dpop: await dpopProof(key, 'POST', htu) });
    expect(asked.body.error).toBe('use_dpop_nonce');
    const nonce = asked.headers.get('dpop-nonce')!;
    const shared = await dpopProof(key, 'POST', htu, { nonce });
    const answers = await Promise.all(
      refreshTokens.map((refresh_token, i) => postToken((i % 2 ? b : a).url, { grant_type: 'refresh_token', refresh_token }, { dpop: shared })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200), statuses.join(' ')).toHaveLength(1);
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 200) continue;
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof was already used' });
      // Not spent: the same refresh token with a proof of its own is served.
      const again = await postToken((i % 2 ? a : b).url, { grant_type: 'refresh_token', refresh_token: refreshTokens[i]! }, { dpop: await dpopProof(key, 'POST', htu, { nonce }) });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
    }
  }, TEST_TIMEOUT_MS * 4);

  it('a DPoP proof accepted on one server is refused on the other within its window; a nonce one issued, the other accepts', async () => {
    const key = await dpopKey();
    const htu = `${publicOrigin}/api/token`;
    const login = { username: 'alice', password: 'wonderland' };
    // The token endpoint asks for a nonce first (RFC 9449 §8).
    const asked = await postToken(a.url, login, { dpop: await dpopProof(key, 'POST', htu) });
    expect(asked.status).toBe(400);
    expect(asked.body.error).toBe('use_dpop_nonce');
    const nonce = asked.headers.get('dpop-nonce')!;
    const proof = await dpopProof(key, 'POST', htu, { nonce });
    const accepted = await postToken(a.url, login, { dpop: proof });
    expect(accepted.status).toBe(200);
    expect(accepted.body.token_type).toBe('DPoP');
    const replayed = await postToken(b.url, login, { dpop: proof });
    expect(replayed.status).toBe(400);
    expect(replayed.body).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof was already used' });
    // B checks the nonce A issued: they share its secret, not its state.
    expect((await postToken(b.url, login, { dpop: await dpopProof(key, 'POST', htu, { nonce }) })).status).toBe(200);
  }, TEST_TIMEOUT_MS * 2);

  it.each(['/api/users/me', '/trpc/users.me'])(
    'on the API (%s), a DPoP proof accepted on one server is refused on the other; a nonce one asked for, the other accepts',
    async (path) => {
      const key = await dpopKey();
      const { access_token } = await dpopLogin(a.url, key, 'alice', 'wonderland', publicOrigin);
      const htu = `${publicOrigin}${path}`;
      const call = (server: TestDemo, proof: string) => request(`${server.url}${path}`, { headers: { authorization: `DPoP ${access_token}`, dpop: proof } });
      // B asks for its nonce (RFC 9449 §9); A accepts it: they share the secret, not state.
      const asked = await call(b, await dpopProof(key, 'GET', htu, { accessToken: access_token }));
      expect(asked.status).toBe(401);
      expect(asked.headers.get('www-authenticate')).toMatch(/^DPoP error="use_dpop_nonce"/);
      const nonce = asked.headers.get('dpop-nonce')!;
      const proof = await dpopProof(key, 'GET', htu, { accessToken: access_token, nonce });
      expect((await call(a, proof)).status).toBe(200);
      const replayed = await call(b, proof);
      expect(replayed.status).toBe(401);
      expect(replayed.headers.get('www-authenticate')).toBe(
        'DPoP error="invalid_dpop_proof", error_description="The DPoP proof was already used", algs="ES256 EdDSA Ed25519 PS256 RS256"',
      );
      expect((await call(b, await dpopProof(key, 'GET', htu, { accessToken: access_token, nonce }))).status).toBe(200);
    },
    TEST_TIMEOUT_MS * 2,
  );
});
