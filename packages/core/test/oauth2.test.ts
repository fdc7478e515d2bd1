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

const cases = ADAPTERS.flatMap((adapter) => HEADER_TABLE.map((row) => ({ adapter, ...row })));

describe('base reader over HTTP', () => {
  it.each(cases.filter((c) => c.base !== null))('$adapter: $header → the whole value', async ({ adapter, header, base }) => {
    const result = await query(servers[adapter], 'base', header);
    expect(result.status).toBe(200);
    expect(result.body.result?.data).toEqual({ authorization: base });
  });

  it.each(cases.filter((c) => c.base === null))(
    '$adapter: $header → 403 Not authenticated, no challenge',
    async ({ adapter, header }) => {
      const result = await query(servers[adapter], 'base', header);
      expect(result.status).toBe(403);
      expect(result.challenge).toBeNull();
      expect(result.body.error?.message).toBe('Not authenticated');
      expect(result.body.error?.data.code).toBe('FORBIDDEN');
    },
  );

  it.each(cases)('$adapter (autoError: false): $header → $base', async ({ adapter, header, base }) => {
    const result = await query(servers[adapter], 'baseOptional', header);
    expect(result.status).toBe(200);
    expect(result.body.result?.data).toEqual({ authorization: base });
  });
});
