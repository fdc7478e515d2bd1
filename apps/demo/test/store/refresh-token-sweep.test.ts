import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_TOKEN_SWEEP_EVERY } from '../../src/store/refresh-tokens.js';
import { SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';
import { login, postToken, request } from '../support/http.js';
import { postgresBinForTests } from '../support/postgres.js';
import { startTwoDemos, type TwoDemos } from '../support/two-demos.js';

// Refresh tokens are rotated on every use, so a client refreshing all day leaves a spent row per
// refresh. Once none of a family's tokens can be used again they are deleted, by the servers
// themselves as they issue tokens; a family in use keeps every row, so a spent token replayed
// still revokes it. Two servers on one PostgreSQL server, whose tables a test can read, with
// refresh tokens living seconds.
const bin = await postgresBinForTests('the refresh-token sweep tests');

const TTL_SECONDS = 2;

describe.skipIf(bin === undefined)('refresh tokens no longer usable, on two demo servers on one PostgreSQL server', () => {
  let demos: TwoDemos;
  let a: TestDemo;
  let b: TestDemo;
  let db: pg.Client;
  beforeAll(async () => {
    demos = await startTwoDemos(bin!, () => ({ refreshTokenTtlSeconds: TTL_SECONDS }));
    ({ a, b } = demos);
    db = new pg.Client({ connectionString: demos.databaseUrl });
    await db.connect();
  }, 2 * SERVER_TIMEOUT_MS);
  afterAll(async () => {
    await db?.end();
    await demos?.stop();
  }, SERVER_TIMEOUT_MS);

  /** Refreshes `token` on server `i % 2`, failing the test on anything but 200; the successor. */
  const refreshed = async (token: string, i: number) => {
    const answer = await postToken((i % 2 ? b : a).url, { grant_type: 'refresh_token', refresh_token: token });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.refresh_token as string;
  };
  const familyOf = async (token: string) =>
    (await db.query<{ family_id: string }>(`SELECT family_id FROM refresh_tokens WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')`, [token]))
      .rows[0]!.family_id;
  const rowsOf = async (familyId: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM refresh_tokens WHERE family_id = $1', [familyId])).rows[0]!.n;

  it('deletes the families that expired or were logged out, keeps every row of a family in use, and its replayed spent token still revokes it', async () => {
    // Refreshed many times, then left to expire.
    const used = [(await login(a.url, 'alice', 'wonderland')).refresh_token];
    for (let i = 0; i < 150; i++) used.push(await refreshed(used.at(-1)!, i));
    // Logged out before it expires.
    const loggedOut = (await login(b.url, 'bob', 'builder')).refresh_token;
    expect((await request(`${a.url}/api/revoke`, { method: 'POST', body: new URLSearchParams({ token: loggedOut }) })).status).toBe(200);
    // Kept in use: refreshed before its latest token expires, while its first ones expire.
    const inUse = [(await login(a.url, 'alice', 'wonderland')).refresh_token];
    const ids = { used: await familyOf(used[0]!), loggedOut: await familyOf(loggedOut), inUse: await familyOf(inUse[0]!) };
    expect(await rowsOf(ids.used)).toBe(151);
    const expired = Date.now() + (TTL_SECONDS + 1) * 1000;
    while (Date.now() < expired) {
      inUse.push(await refreshed(inUse.at(-1)!, inUse.length));
      await sleep(250);
    }
    // Enough tokens issued on each server for each to sweep at least once since.
    for (let i = 0; i < 2 * REFRESH_TOKEN_SWEEP_EVERY; i++) inUse.push(await refreshed(inUse.at(-1)!, i));

    expect({ used: await rowsOf(ids.used), loggedOut: await rowsOf(ids.loggedOut), inUse: await rowsOf(ids.inUse) })
      .toEqual({ used: 0, loggedOut: 0, inUse: inUse.length });
    const unusable = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM refresh_tokens WHERE expires_at <= now() AND family_id <> $1`,
      [ids.inUse],
    );
    expect(unusable.rows[0]!.n).toBe(0);
    // The family's first token, spent and expired seconds ago, replayed: refused, and the family revoked.
    const replayed = await postToken(b.url, { grant_type: 'refresh_token', refresh_token: inUse[0]! });
    expect(replayed.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or revoked' });
    expect((await postToken(a.url, { grant_type: 'refresh_token', refresh_token: inUse.at(-1)! })).status).toBe(400);
  }, TEST_TIMEOUT_MS * 3);
});
