import fc from 'fast-check';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MULTIPART, OCTET_STREAM, URLENCODED } from '../../src/body/media-type.js';
import { FACES, isRest, serveFace, type Face, type RunningFace } from '../support/faces.js';

// A body whose Content-Length already exceeds the limit is refused before a byte of it is read,
// whatever its type, with 413 (docs/contract.md#body-limits): one JSON answer with that status on
// every face, a batch and a client that asked for a stream (JSON Lines, whose answer is a 200) too.

const LIMIT = 1_000;
const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
const router = t.router({
  echo: t.procedure
    .meta({ openapi: { method: 'POST', path: '/echo' } })
    .input(z.object({ a: z.string() }).optional())
    .output(z.unknown())
    .mutation(({ input }) => input ?? null),
});

const servers = {} as Record<Face, RunningFace>;
beforeAll(async () => {
  for (const face of FACES) servers[face] = await serveFace(router, face, { maxBodySize: LIMIT });
});
afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

const B = 'declared-boundary';
const BODIES: Record<string, (size: number) => string> = {
  'application/json': (size) => JSON.stringify({ a: 'x'.repeat(size) }),
  [`${MULTIPART}; boundary=${B}`]: (size) => `--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\n${'x'.repeat(size)}\r\n--${B}--\r\n`,
  [URLENCODED]: (size) => `a=${'x'.repeat(size)}`,
  [OCTET_STREAM]: (size) => 'x'.repeat(size),
};

describe('a body whose Content-Length is over the limit', () => {
  it('is a 413 answered whole, before the body is read, on every face', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FACES),
        fc.constantFrom(...Object.keys(BODIES)),
        fc.integer({ min: LIMIT + 1, max: 3 * LIMIT }),
        fc.boolean(),
        fc.boolean(),
        async (face, type, size, batch, stream) => {
          const server = servers[face];
          // Over REST a call is never a batch nor streamed; those headers are ignored there.
          const url = isRest(face) ? `${server.origin}/api/echo` : `${server.origin}/trpc/echo${batch ? '?batch=1' : ''}`;
          const headers: Record<string, string> = { 'content-type': type };
          if (stream) headers['trpc-accept'] = 'application/jsonl';
          const body = BODIES[type]!(size);
          const response = await fetch(url, { method: 'POST', headers, body });
          const text = await response.text();
          expect(response.status, `${face} ${type} ${text.slice(0, 200)}`).toBe(413);
          expect(response.headers.get('content-type')).toBe('application/json');
          expect(text).toContain(`Request body larger than ${LIMIT} bytes`);
        },
      ),
      { numRuns: 60 },
    );
  });
});
