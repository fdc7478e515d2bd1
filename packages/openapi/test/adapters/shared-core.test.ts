import { createServer } from 'node:http';
import { initTRPC, TRPCError } from '@trpc/server';
import fc from 'fast-check';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { closing, servingOnLoopback } from '@trpc-oauth2/test-kit';
import { createOAuth2OpenApiFetchHandler } from '../../src/adapters/fetch.js';
import { createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';

// trpc-to-openapi's core, counted: making one generates the router's whole document to check it,
// which its own fetch handler does on every request (BENCHMARKS.md#the-rest-fetch-face).
const made = vi.hoisted(() => ({ cores: 0 }));
vi.mock('trpc-to-openapi', async (original) => {
  const real = await original<typeof import('trpc-to-openapi')>();
  return {
    ...real,
    createOpenApiNodeHttpHandler: (...args: Parameters<typeof real.createOpenApiNodeHttpHandler>) => {
      made.cores += 1;
      return real.createOpenApiNodeHttpHandler(...args);
    },
  };
});

interface Ctx {
  tag?: number;
}
const makeRouter = () => {
  const t = initTRPC.context<Ctx>().meta<OpenApiMeta>().create();
  return t.router({
    echo: t.procedure
      .meta({ openapi: { method: 'GET', path: '/echo' } })
      .input(z.object({ delay: z.coerce.number().int().min(0).max(20), fail: z.enum(['no', 'forbidden', 'conflict']) }))
      .output(z.object({ tag: z.number().optional() }))
      .query(async ({ ctx, input }) => {
        await new Promise((resolve) => setTimeout(resolve, input.delay));
        if (input.fail === 'forbidden') throw new TRPCError({ code: 'FORBIDDEN', message: `refused ${ctx.tag}` });
        if (input.fail === 'conflict') throw new TRPCError({ code: 'CONFLICT', message: `conflict ${ctx.tag}` });
        return { tag: ctx.tag };
      }),
  });
};

describe("the REST handlers share trpc-to-openapi's core per router", () => {
  it('the fetch handler makes one core for many requests whatever their options, and one more per other router', async () => {
    const router = makeRouter();
    const before = made.cores;
    for (let i = 0; i < 20; i++) {
      const response = await createOAuth2OpenApiFetchHandler({ router, req: new Request(`http://x/echo?delay=0&fail=no`), createContext: () => ({ tag: i }) });
      expect(await response.json()).toEqual({ tag: i });
    }
    expect(made.cores - before).toBe(1);
    for (const maxBodySize of [10, 11, 12]) await createOAuth2OpenApiFetchHandler({ router, req: new Request('http://x/echo?delay=0&fail=no'), maxBodySize });
    expect(made.cores - before).toBe(1);
    await createOAuth2OpenApiFetchHandler({ router: makeRouter(), req: new Request('http://x/echo?delay=0&fail=no') });
    expect(made.cores - before).toBe(2);
  });

  it('Node handlers made for the same router share its core, made when the handler is', async () => {
    const router = makeRouter();
    const before = made.cores;
    const first = createOAuth2OpenApiHttpHandler({ router, createContext: () => ({ tag: 1 }) });
    expect(made.cores - before).toBe(1);
    const second = createOAuth2OpenApiHttpHandler({ router, createContext: () => ({ tag: 2 }) });
    expect(made.cores - before).toBe(1);
    // Each still answers with its own hooks.
    for (const [handler, tag] of [[first, 1], [second, 2]] as const) {
      const server = createServer((req, res) => void handler(req, res));
      const origin = await servingOnLoopback(server);
      try {
        const response = await fetch(`${origin}/echo?delay=0&fail=no`);
        expect(await response.json()).toEqual({ tag });
      } finally {
        await closing(server);
      }
    }
    expect(made.cores - before).toBe(1);
  });

  it('a router trpc-to-openapi refuses throws when the Node handler is made, not at its first request', () => {
    const t = initTRPC.meta<OpenApiMeta>().create();
    const router = t.router({ bad: t.procedure.meta({ openapi: { method: 'GET', path: 'no-slash' as `/${string}` } }).query(() => 1) });
    expect(() => createOAuth2OpenApiHttpHandler({ router })).toThrow();
  });

  // Every call of the fetch handler may bring hooks of its own; the shared core must answer each
  // request with its own, however the requests interleave.
  it('concurrent fetch calls each get their own createContext, responseMeta and onError', async () => {
    const router = makeRouter();
    const outcome = fc.constantFrom('ok', 'forbidden', 'conflict', 'invalid', 'missing');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ delay: fc.integer({ min: 0, max: 6 }), outcome, status: fc.constantFrom(undefined, 201, 203, 418) }), { minLength: 1, maxLength: 24 }), async (calls) => {
        const reported: Array<{ tag: number; code: string }> = [];
        const responses = await Promise.all(
          calls.map(({ delay, outcome, status }, tag) => {
            const path = outcome === 'missing' ? '/nowhere' : '/echo';
            const fail = outcome === 'ok' || outcome === 'missing' ? 'no' : outcome === 'invalid' ? 'maybe' : outcome;
            return createOAuth2OpenApiFetchHandler({
              router,
              req: new Request(`http://x${path}?delay=${delay}&fail=${fail}`),
              createContext: () => ({ tag }),
              responseMeta: () => ({ ...(status === undefined ? {} : { status }), headers: { 'x-tag': String(tag) } }),
              onError: ({ error }) => void reported.push({ tag, code: error.code }),
            });
          }),
        );
        const expected = { ok: 200, forbidden: 403, conflict: 409, invalid: 400, missing: 404 } as const;
        for (const [tag, response] of responses.entries()) {
          const { outcome, status } = calls[tag]!;
          expect(response.headers.get('x-tag')).toBe(String(tag));
          expect(response.status).toBe(status ?? expected[outcome]);
          const body = (await response.json()) as { tag?: number; message?: string };
          if (outcome === 'ok') expect(body).toEqual({ tag });
          if (outcome === 'forbidden') expect(body.message).toBe(`refused ${tag}`);
          if (outcome === 'conflict') expect(body.message).toBe(`conflict ${tag}`);
        }
        const failing = calls.flatMap(({ outcome }, tag) => (outcome === 'ok' ? [] : [tag]));
        expect(reported.map(({ tag }) => tag).sort((a, b) => a - b)).toEqual(failing);
      }),
      { numRuns: 40 },
    );
  });
});
