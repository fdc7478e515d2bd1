import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADER_TABLE } from '@trpc-oauth2/test-kit';
import { readersRouter } from './support/readers-router.js';
import { ADAPTERS, query, serveOnEveryAdapter, type Adapter, type RunningServer } from './support/serve.js';

let servers: Record<Adapter, RunningServer>;
beforeAll(async () => {
  servers = await serveOnEveryAdapter(readersRouter);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const cases = ADAPTERS.flatMap((adapter) =>
  (['password', 'code'] as const).flatMap((reader) => HEADER_TABLE.map((row) => ({ adapter, reader, ...row }))),
);

describe('bearer readers over HTTP', () => {
  it.each(cases.filter((c) => c.bearer !== null))(
    '$adapter $reader: $header → token $bearer',
    async ({ adapter, reader, header, bearer }) => {
      const result = await query(servers[adapter], reader, header);
      expect(result.status).toBe(200);
      expect(result.challenge).toBeNull();
      expect(result.body.result?.data).toEqual({ token: bearer });
    },
  );

  it.each(cases.filter((c) => c.bearer === null))(
    '$adapter $reader: $header → 401 Not authenticated, WWW-Authenticate: Bearer',
    async ({ adapter, reader, header }) => {
      const result = await query(servers[adapter], reader, header);
      expect(result.status).toBe(401);
      expect(result.challenge).toBe('Bearer');
      expect(result.body.error?.message).toBe('Not authenticated');
      expect(result.body.error?.data.code).toBe('UNAUTHORIZED');
    },
  );

  it.each(cases.map((c) => ({ ...c, reader: `${c.reader}Optional` })))(
    '$adapter $reader (autoError: false): $header → $bearer',
    async ({ adapter, reader, header, bearer }) => {
      const result = await query(servers[adapter], reader, header);
      expect(result.status).toBe(200);
      expect(result.challenge).toBeNull();
      expect(result.body.result?.data).toEqual({ token: bearer });
    },
  );
});
