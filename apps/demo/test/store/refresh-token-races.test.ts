import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/store/database.js';
import { RefreshTokenStore } from '../../src/store/refresh-tokens.js';
import { SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';
import { postToken, request, type JsonResponse } from '../support/http.js';
import { postgresBinForTests } from '../support/postgres.js';
import { startTwoDemos, type TwoDemos } from '../support/two-demos.js';

// Requests on one refresh-token family racing each other on two demo servers that share one
// PostgreSQL server (PGlite runs one transaction at a time, so only PostgreSQL can interleave
// them): a logout (RFC 7009) racing a refresh must leave no live token in the family, and
// replays of spent tokens (RFC 9700 §4.14.2) must be refused with 400, never fail with 500 on a
// deadlock. Each race is run on many families at once, which makes the bad interleavings likely.
const bin = await postgresBinForTests('the refresh-token race tests');

/** Families raced at once in each test. */
const TRIALS = 30;
const INVALID_GRANT = { error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or revoked' };

describe.skipIf(bin === undefined)('requests racing on one refresh-token family, over two demo servers on one PostgreSQL server', () => {
  let demos: TwoDemos;
  let a: TestDemo;
  let b: TestDemo;
  let db: Database;
  let store: RefreshTokenStore;
  beforeAll(async () => {
    demos = await startTwoDemos(bin!);
    ({ a, b } = demos);
    // Families are started straight in the store, as a login does: a login hashes a password,
    // far too slowly for this many families.
    db = await openPostgres(demos.databaseUrl, 2);
    store = new RefreshTokenStore(db, 3600);
  }, 2 * SERVER_TIMEOUT_MS);
  afterAll(async () => {
    await db?.close();
    await demos?.stop();
  }, SERVER_TIMEOUT_MS);

  const newFamily = () => store.issue({ username: 'alice', clientId: null, scopes: ['me', 'items'] });
  const refresh = (server: TestDemo, refreshToken: string) => postToken(server.url, { grant_type: 'refresh_token', refresh_token: refreshToken });
  const logout = (server: TestDemo, token: string) => request(`${server.url}/api/revoke`, { method: 'POST', body: new URLSearchParams({ token }) });
  /** Refreshes `token` on `server`, failing the test on anything but 200; the successor. */
  const rotated = async (server: TestDemo, token: string) => {
    const answer = await refresh(server, token);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.refresh_token as string;
  };
  /** Tokens of the family of `token` that are not revoked. */
  const liveInFamily = async (token: string) => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM refresh_tokens
        WHERE family_id = (SELECT family_id FROM refresh_tokens WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex'))
          AND revoked_at IS NULL`,
      [token],
    );
    return rows[0]!.n;
  };
  /** `send` started after a delay of 0 to 1.5 ms, by `trial`: the interleavings vary. */
  const after = async <T>(trial: number, send: () => Promise<T>) => {
    if (trial % 4 !== 0) await sleep((trial % 4) * 0.5);
    return send();
  };
  const describeAnswers = (answers: JsonResponse[]) => answers.map((answer) => `${answer.status} ${answer.body?.error ?? ''}`).join(', ');

  it(`a logout answered 200 while a refresh of the same token runs leaves no token of the family working (${TRIALS} families at once)`, async () => {
    const r1s = await Promise.all(Array.from({ length: TRIALS }, newFamily));
    const races = await Promise.all(
      r1s.map(async (r1, trial) => {
        // The refresh on one server, the logout on the other, alternately.
        const [here, there] = trial % 2 === 0 ? [a, b] : [b, a];
        const [refreshed, loggedOut] = await Promise.all([refresh(here, r1), after(trial, () => logout(there, r1))]);
        return { r1, refreshed, loggedOut, here, there };
      }),
    );
    const wonByRefresh = races.filter(({ refreshed }) => refreshed.status === 200).length;
    const escaped: string[] = [];
    for (const [trial, { r1, refreshed, loggedOut, here, there }] of races.entries()) {
      expect(loggedOut.status, `trial ${trial}: logout ${JSON.stringify(loggedOut.body)}`).toBe(200);
      expect([200, 400], `trial ${trial}: refresh ${JSON.stringify(refreshed.body)}`).toContain(refreshed.status);
      if (refreshed.status === 400) expect(refreshed.body).toEqual(INVALID_GRANT);
      const live = await liveInFamily(r1);
      // Neither the logged-out token nor the successor the refresh got still refreshes, on either server.
      const replayed = await refresh(there, r1);
      const successor = refreshed.status === 200 ? await refresh(there, refreshed.body.refresh_token) : undefined;
      const successorAgain = refreshed.status === 200 ? await refresh(here, refreshed.body.refresh_token) : undefined;
      if (live > 0 || replayed.status !== 400 || successor?.status === 200 || successorAgain?.status === 200) {
        escaped.push(`trial ${trial}: ${live} live token(s) left, R1 answers ${replayed.status}, its successor ${successor?.status ?? '-'} / ${successorAgain?.status ?? '-'}`);
      }
    }
    expect(escaped, `refresh won ${wonByRefresh} of ${TRIALS} races; families that survived their logout:\n${escaped.join('\n')}`).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it(`concurrent replays of spent tokens of one family are all refused with 400 invalid_grant, never 500 (${TRIALS} families at once)`, async () => {
    // R0 -> R1 -> R2 -> R3: R0, R1 and R2 are spent, R3 is live.
    const chains = await Promise.all(
      Array.from({ length: TRIALS }, async () => {
        const r0 = await newFamily();
        const r1 = await rotated(a, r0);
        const r2 = await rotated(b, r1);
        return [r0, r1, r2, await rotated(a, r2)] as const;
      }),
    );
    const replays = await Promise.all(
      chains.map(([r0, r1, r2], trial) =>
        Promise.all([refresh(a, r0), after(trial, () => refresh(b, r1)), after(trial + 1, () => refresh(trial % 2 ? a : b, r2))]),
      ),
    );
    for (const [trial, answers] of replays.entries()) {
      expect(answers.map((answer) => answer.status), `trial ${trial}: ${describeAnswers(answers)}`).toEqual([400, 400, 400]);
      for (const answer of answers) expect(answer.body).toEqual(INVALID_GRANT);
      // The reuse revoked the whole family: the live R3 is refused too.
      const r3 = chains[trial]![3];
      expect(await liveInFamily(r3), `trial ${trial}`).toBe(0);
      expect((await refresh(trial % 2 ? a : b, r3)).body).toEqual(INVALID_GRANT);
    }
  }, TEST_TIMEOUT_MS);

  it(`replays, logouts and a refresh of one family at once never fail with 500, and leave the family revoked (${TRIALS} families at once)`, async () => {
    // R0 -> R1: R0 is spent, R1 is live.
    const chains = await Promise.all(
      Array.from({ length: TRIALS }, async (_, trial) => {
        const r0 = await newFamily();
        return [r0, await rotated(trial % 2 ? a : b, r0)] as const;
      }),
    );
    const raced = await Promise.all(
      chains.map(([r0, r1], trial) =>
        Promise.all([
          refresh(a, r0),
          after(trial, () => logout(b, r0)),
          after(trial + 1, () => logout(a, r1)),
          after(trial + 2, () => refresh(b, r1)),
        ]),
      ),
    );
    for (const [trial, answers] of raced.entries()) {
      const [r0] = chains[trial]!;
      const [replayed, loggedOut0, loggedOut1, refreshed] = answers;
      const context = `trial ${trial}: ${describeAnswers(answers)}`;
      expect([replayed.status, loggedOut0.status, loggedOut1.status], context).toEqual([400, 200, 200]);
      expect(replayed.body, context).toEqual(INVALID_GRANT);
      expect([200, 400], context).toContain(refreshed.status);
      expect(await liveInFamily(r0), context).toBe(0);
      if (refreshed.status === 200) expect((await refresh(trial % 2 ? a : b, refreshed.body.refresh_token)).body, context).toEqual(INVALID_GRANT);
      else expect(refreshed.body, context).toEqual(INVALID_GRANT);
    }
  }, TEST_TIMEOUT_MS);
});
