/**
 * A user's list of items is bounded (apps/demo/README.md, "What is served"): every add would
 * otherwise grow what `users.items`, `GET /api/users/me/items` and a stream resuming from the
 * start read and send in one answer, without end. The bound holds for adds racing on two servers
 * sharing one PostgreSQL server.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoClient, refusalOf } from '../../src/client/demo-client.js';
import { SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { bearer, login, request } from '../support/http.js';
import { postgresBinForTests } from '../support/postgres.js';
import { startTwoDemos, type TwoDemos } from '../support/two-demos.js';

const bin = await postgresBinForTests('the item limit tests');

/** The most items one user may have, as the README says. */
const MAX_ITEMS = 1_000;
const RACERS = 20;
const ROOM = 5;

describe.skipIf(bin === undefined)("a user's items", () => {
  let demos: TwoDemos;
  beforeAll(async () => {
    demos = await startTwoDemos(bin!);
  }, 2 * SERVER_TIMEOUT_MS);
  afterAll(() => demos?.stop(), SERVER_TIMEOUT_MS);

  it(
    `are at most ${MAX_ITEMS}: of ${RACERS} adds racing over both servers with room for ${ROOM}, ${ROOM} are stored and the rest refused with 409`,
    async () => {
      const { access_token: token } = await login(demos.a.url, 'alice', 'wonderland', 'me items');
      const listed = async (url: string) => {
        const { status, body } = await request(`${url}/api/users/me/items`, { headers: bearer(token) });
        expect(status).toBe(200);
        return body as { id: number; title: string }[];
      };
      // Filled up to the last few places directly in the database: the adds below race for those.
      const db = new pg.Client({ connectionString: demos.databaseUrl });
      await db.connect();
      try {
        const seeded = (await listed(demos.a.url)).length;
        await db.query(`INSERT INTO items (owner, title) SELECT 'alice', 'filler ' || n FROM generate_series(1, $1::integer) AS n`, [MAX_ITEMS - ROOM - seeded]);
      } finally {
        await db.end();
      }
      const clients = [demoClient(demos.a.url, () => token), demoClient(demos.b.url, () => token)];
      const results = await Promise.allSettled(
        Array.from({ length: RACERS }, (_, i) => clients[i % 2]!.users.addItem.mutate({ title: `racer ${i}` })),
      );
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(ROOM);
      const refusals = await Promise.all(
        results.flatMap((result) => (result.status === 'rejected' ? [refusalOf(Promise.reject(result.reason))] : [])),
      );
      expect(refusals).toHaveLength(RACERS - ROOM);
      for (const refusal of refusals) {
        expect(refusal.status).toBe(409);
        expect(refusal.message).toBe(`A user has at most ${MAX_ITEMS} items: this list is full`);
      }
      expect(await listed(demos.a.url)).toHaveLength(MAX_ITEMS);
      expect(await listed(demos.b.url)).toHaveLength(MAX_ITEMS);
      // Full stays full, one add at a time too.
      expect((await refusalOf(clients[1]!.users.addItem.mutate({ title: 'one more' }))).status).toBe(409);
    },
    TEST_TIMEOUT_MS * 2,
  );
});
