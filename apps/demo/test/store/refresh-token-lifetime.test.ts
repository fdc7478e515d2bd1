import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/store/database.js';
import { RefreshTokenStore, type RefreshGrant } from '../../src/store/refresh-tokens.js';
import { SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';
import { login, postToken } from '../support/http.js';
import { postgresBinForTests } from '../support/postgres.js';
import { startTwoDemos, type TwoDemos } from '../support/two-demos.js';

// A refresh-token family lives at most its maximum lifetime from its login, however often it
// rotates: each rotation leaves a spent row (kept so that a replayed one revokes the family), so
// a family refreshed without end would otherwise grow without end and never be swept. Two demo
// servers on one PostgreSQL server, whose tables a test reads, with lifetimes of seconds.
const bin = await postgresBinForTests('the refresh-token lifetime tests');

const TTL_SECONDS = 3;
const MAX_LIFETIME_SECONDS = 4;
/** How often a client keeps refreshing: well within the TTL. */
const REFRESH_EVERY_MS = 200;
const INVALID_GRANT = { error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or revoked' };
const GRANT: RefreshGrant = { username: 'alice', clientId: null, scopes: ['me', 'items'] };

describe.skipIf(bin === undefined)('the maximum lifetime of a refresh-token family, on two demo servers on one PostgreSQL server', () => {
  let demos: TwoDemos;
  let a: TestDemo;
  let b: TestDemo;
  let db: Database;
  beforeAll(async () => {
    demos = await startTwoDemos(bin!, () => ({ refreshTokenTtlSeconds: TTL_SECONDS, refreshTokenMaxLifetimeSeconds: MAX_LIFETIME_SECONDS }));
    ({ a, b } = demos);
    db = await openPostgres(demos.databaseUrl, 2);
  }, 2 * SERVER_TIMEOUT_MS);
  afterAll(async () => {
    await db?.close();
    await demos?.stop();
  }, SERVER_TIMEOUT_MS);

  const hashOf = `encode(sha256(convert_to($1, 'UTF8')), 'hex')`;
  const familyOf = async (token: string) =>
    (await db.query<{ family_id: string }>(`SELECT family_id FROM refresh_tokens WHERE token_hash = ${hashOf}`, [token])).rows[0]!.family_id;
  const rowsOf = async (familyId: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM refresh_tokens WHERE family_id = $1', [familyId])).rows[0]!.n;
  /** Whether every token of the family expires by its first token's `created_at` plus `maxLifetimeSeconds`. */
  const withinLifetime = async (familyId: string, maxLifetimeSeconds: number) =>
    (
      await db.query<{ within: boolean }>(
        `SELECT bool_and(expires_at <= (SELECT min(created_at) FROM refresh_tokens WHERE family_id = $1) + make_interval(secs => $2)) AS within
           FROM refresh_tokens WHERE family_id = $1`,
        [familyId, maxLifetimeSeconds],
      )
    ).rows[0]!.within;

  it('refuses a family refreshed every fraction of its TTL once its maximum lifetime is over, never issuing a token past it', async () => {
    const tokens = [(await login(a.url, 'alice', 'wonderland')).refresh_token];
    const familyId = await familyOf(tokens[0]!);
    // Refreshed on either server until refused, and for a while past the lifetime at most.
    const giveUp = Date.now() + (MAX_LIFETIME_SECONDS + TTL_SECONDS) * 1000;
    let refused: Awaited<ReturnType<typeof postToken>> | undefined;
    let refusedAt = 0;
    while (refused === undefined && Date.now() < giveUp) {
      await sleep(REFRESH_EVERY_MS);
      const answer = await postToken((tokens.length % 2 ? b : a).url, { grant_type: 'refresh_token', refresh_token: tokens.at(-1)! });
      if (answer.status === 200) tokens.push(answer.body.refresh_token as string);
      else [refused, refusedAt] = [answer, Date.now()];
    }
    // Every successor expires by the family's end, though its TTL would have let it live on.
    expect.soft(await withinLifetime(familyId, MAX_LIFETIME_SECONDS)).toBe(true);
    const { rows } = await db.query<{ cut: number }>(
      'SELECT count(*)::int AS cut FROM refresh_tokens WHERE family_id = $1 AND expires_at < created_at + make_interval(secs => $2)',
      [familyId, TTL_SECONDS],
    );
    expect.soft(rows[0]!.cut, 'successors whose TTL was cut short by the lifetime').toBeGreaterThan(0);

    expect(refused?.body, 'a refresh refused before giving up').toEqual(INVALID_GRANT);
    // Refreshed all along, and refused no sooner than the family's end.
    expect(tokens.length).toBeGreaterThan((MAX_LIFETIME_SECONDS * 1000) / REFRESH_EVERY_MS / 2);
    const { rows: started } = await db.query<{ at: Date }>('SELECT min(created_at) AS at FROM refresh_tokens WHERE family_id = $1', [familyId]);
    expect(refusedAt).toBeGreaterThanOrEqual(started[0]!.at.getTime() + MAX_LIFETIME_SECONDS * 1000 - 1);
    const { rows: last } = await db.query<{ issued_within_ttl: boolean; unused: boolean }>(
      `SELECT now() - created_at < make_interval(secs => $2) AS issued_within_ttl, used_at IS NULL AND revoked_at IS NULL AS unused
         FROM refresh_tokens WHERE token_hash = ${hashOf}`,
      [tokens.at(-1)!, TTL_SECONDS],
    );
    // The token refused was issued within its TTL, never used, never revoked: only its family's age refused it.
    expect(last[0]).toEqual({ issued_within_ttl: true, unused: true });
    // On the other server too.
    expect((await postToken(a.url, { grant_type: 'refresh_token', refresh_token: tokens.at(-1)! })).body).toEqual(INVALID_GRANT);
    expect((await postToken(b.url, { grant_type: 'refresh_token', refresh_token: tokens.at(-1)! })).body).toEqual(INVALID_GRANT);

    // And it is swept, every row of it, while a family in use is kept.
    const live = await new RefreshTokenStore(db, TTL_SECONDS, MAX_LIFETIME_SECONDS).issue(GRANT);
    expect(await rowsOf(familyId)).toBe(tokens.length);
    await new RefreshTokenStore(db, TTL_SECONDS, MAX_LIFETIME_SECONDS).sweep();
    expect({ ended: await rowsOf(familyId), live: await rowsOf(await familyOf(live)) }).toEqual({ ended: 0, live: 1 });
  }, TEST_TIMEOUT_MS);

  it('a store with a TTL longer than the lifetime issues and rotates tokens expiring at the family’s end, then refuses and sweeps the family', async () => {
    const store = new RefreshTokenStore(db, 3600, 2);
    const tokens = [await store.issue(GRANT)];
    const familyId = await familyOf(tokens[0]!);
    const giveUp = Date.now() + 6_000;
    let refusal: string | undefined;
    while (refusal === undefined && Date.now() < giveUp) {
      await sleep(REFRESH_EVERY_MS);
      const result = await store.rotate(tokens.at(-1)!, null, []);
      if (result.ok) tokens.push(result.refreshToken);
      else refusal = result.reason;
    }
    expect.soft(await withinLifetime(familyId, 2)).toBe(true);
    expect(refusal).toBe('expired');
    expect(tokens.length).toBeGreaterThan(3);
    expect(await rowsOf(familyId)).toBe(tokens.length);
    await store.sweep();
    expect(await rowsOf(familyId)).toBe(0);
  }, TEST_TIMEOUT_MS);

  it('refuses and sweeps a family past a lifetime shortened since its tokens were issued, whatever their own expiry', async () => {
    // Issued and rotated under a lifetime of an hour; then the setting is one second.
    const before = new RefreshTokenStore(db, 3600, 3600);
    const first = await before.issue(GRANT);
    const rotated = await before.rotate(first, null, []);
    expect(rotated.ok).toBe(true);
    const token = (rotated as { refreshToken: string }).refreshToken;
    const familyId = await familyOf(token);
    await sleep(1_200);
    const after = new RefreshTokenStore(db, 3600, 1);
    // Still unexpired: the old lifetime's sweep keeps it.
    await before.sweep();
    expect(await rowsOf(familyId)).toBe(2);
    expect(await after.rotate(token, null, [])).toEqual({ ok: false, reason: 'expired' });
    const live = await after.issue(GRANT);
    await after.sweep();
    expect({ ended: await rowsOf(familyId), live: await rowsOf(await familyOf(live)) }).toEqual({ ended: 0, live: 1 });
  }, TEST_TIMEOUT_MS);
});
