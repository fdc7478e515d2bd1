import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, call, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { HEADER_TABLE } from '@trpc-oauth2/test-kit';
import { BEARER_READERS, httpRouter } from '../support/http-router.js';

let servers: Record<Face, RunningFace>;
beforeAll(async () => {
  servers = await serveFaces(httpRouter, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const rows = FACES.flatMap((face) => HEADER_TABLE.map((row) => ({ face, ...row })));
const headers = (header: string | undefined): Record<string, string> => (header === undefined ? {} : { authorization: header });

describe("the header table of docs/contract.md#reading-the-authorization-header on every face (trpc-to-openapi's two handlers, tRPC's two adapters)", () => {
  const bearer = rows.flatMap((row) => BEARER_READERS.map((reader) => ({ ...row, reader })));

  it.each(bearer.filter((c) => c.bearer !== null))('$face $reader: $header → token $bearer', async ({ face, reader, header, bearer: token }) => {
    const result = await call(servers[face], reader, { headers: headers(header) });
    expect(result).toMatchObject({ status: 200, challenge: null, data: { token } });
  });

  it.each(bearer.filter((c) => c.bearer === null))(
    '$face $reader: $header → 401 "Not authenticated", WWW-Authenticate: Bearer',
    async ({ face, reader, header }) => {
      const result = await call(servers[face], reader, { headers: headers(header) });
      expect(result.status).toBe(401);
      expect(result.challenge).toBe('Bearer');
      expect(result.error).toEqual({ message: 'Not authenticated', code: 'UNAUTHORIZED' });
    },
  );

  it.each(bearer.map((c) => ({ ...c, reader: `${c.reader}Optional` })))(
    '$face $reader (autoError: false): $header → $bearer',
    async ({ face, reader, header, bearer: token }) => {
      const result = await call(servers[face], reader, { headers: headers(header) });
      expect(result).toMatchObject({ status: 200, challenge: null, data: { token } });
    },
  );

  it.each(rows.filter((c) => c.base !== null))('$face base: $header → the whole value', async ({ face, header, base }) => {
    const result = await call(servers[face], 'base', { headers: headers(header) });
    expect(result).toMatchObject({ status: 200, challenge: null, data: { authorization: base } });
  });

  it.each(rows.filter((c) => c.base === null))('$face base: $header → 403 "Not authenticated", no challenge', async ({ face, header }) => {
    const result = await call(servers[face], 'base', { headers: headers(header) });
    expect(result.status).toBe(403);
    expect(result.challenge).toBeNull();
    expect(result.error).toEqual({ message: 'Not authenticated', code: 'FORBIDDEN' });
  });

  it.each(rows)('$face baseOptional: $header → $base', async ({ face, header, base }) => {
    const result = await call(servers[face], 'baseOptional', { headers: headers(header) });
    expect(result).toMatchObject({ status: 200, challenge: null, data: { authorization: base } });
  });
});
