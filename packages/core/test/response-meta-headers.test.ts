/**
 * docs/contract.md#reading-the-authorization-header ("Getting the challenge onto the response"):
 * a header an inner `responseMeta` set is kept by `oauth2ResponseMeta(inner)`, on every answer, a
 * refusal's included. `Set-Cookie` is the header a `Headers` cannot give as one value (its values
 * are not joined, RFC 6265 §3), so every cookie must reach the response as the inner set it,
 * whether it came as a `Headers` or as a record holding a list. A header a `Headers` joins with
 * `", "` (`Vary` here) reaches the response with all its values.
 */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { initTRPC } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, oauth2ResponseMeta } from '../src/index.js';
import { responseHeaderRecord } from '../src/protocol.js';

const COOKIES = ['session=abc; Path=/; HttpOnly', 'csrf=xyz; Path=/'];

const t = initTRPC.context<{ req?: unknown }>().create();
const auth = oauth2PasswordBearer({ tokenUrl: '/token', verify: async () => ({ scopes: [] }) });
const router = t.router({
  open: t.procedure.query(() => 'open'),
  guarded: t.procedure.use(auth).query(() => 'guarded'),
});

type Inner = () => { headers: Headers | Record<string, string | string[]> };

/** The inner `responseMeta`s an application may give: cookies (and a repeated `Vary`) as a `Headers` or a record. */
const INNERS: Record<string, Inner> = {
  'a Headers': () => {
    const headers = new Headers();
    for (const cookie of COOKIES) headers.append('set-cookie', cookie);
    headers.append('vary', 'Origin');
    headers.append('vary', 'Accept-Encoding');
    return { headers };
  },
  'a record of lists': () => ({ headers: { 'set-cookie': [...COOKIES], vary: ['Origin', 'Accept-Encoding'] } }),
  'a record in mixed case': () => ({ headers: { 'Set-Cookie': [...COOKIES], Vary: 'Origin, Accept-Encoding' } }),
};

type Adapter = 'fetch' | 'standalone';
type ResponseMeta = ((opts: { errors: readonly unknown[] }) => unknown) | undefined;

/** Serves the router on one adapter, on 127.0.0.1 at a port the OS picks, with `responseMeta`. */
async function serveWith(adapter: Adapter, responseMeta: ResponseMeta): Promise<{ url: string; close(): Promise<void> }> {
  let server: Server;
  if (adapter === 'standalone') {
    server = createHTTPServer({ router, basePath: '/trpc/', createContext: ({ req }) => ({ req }), responseMeta: responseMeta as never });
    server.listen(0, '127.0.0.1');
  } else {
    server = serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (req) => fetchRequestHandler({ endpoint: '/trpc', req, router, createContext: ({ req }) => ({ req }), responseMeta: responseMeta as never }),
    }) as Server;
  }
  const port = await listening(server);
  return { url: `http://127.0.0.1:${port}/trpc`, close: () => closing(server) };
}

/** What a response carries of the headers under test. */
async function answer(url: string) {
  const response = await fetch(url);
  await response.arrayBuffer();
  return {
    status: response.status,
    cookies: response.headers.getSetCookie(),
    vary: response.headers.get('vary'),
    challenge: response.headers.get('www-authenticate'),
  };
}

describe.each(['fetch', 'standalone'] as const)('oauth2ResponseMeta(inner) over the %s adapter', (adapter) => {
  describe.each(Object.entries(INNERS))('when inner gives its headers as %s', (_, inner) => {
    const servers: { bare?: { url: string; close(): Promise<void> }; wrapped?: { url: string; close(): Promise<void> } } = {};
    beforeAll(async () => {
      [servers.bare, servers.wrapped] = await Promise.all([serveWith(adapter, inner), serveWith(adapter, oauth2ResponseMeta(inner as never))]);
    });
    afterAll(() => Promise.all([servers.bare?.close(), servers.wrapped?.close()]));

    /** The answer of the wrapped server and of the bare one (inner alone) to the same call. */
    const both = (target: string) => Promise.all([answer(`${servers.wrapped!.url}${target}`), answer(`${servers.bare!.url}${target}`)]);
    const VARY = expect.stringMatching(/(^|, )Origin, Accept-Encoding$/);

    it('keeps every Set-Cookie on an answered call, as inner alone sends them', async () => {
      const [wrapped, bare] = await both('/open');
      expect(bare).toEqual({ status: 200, cookies: COOKIES, vary: VARY, challenge: null });
      expect(wrapped).toEqual({ status: 200, cookies: COOKIES, vary: VARY, challenge: null });
    });

    it('keeps every Set-Cookie on a refused call, alongside the challenge it adds', async () => {
      const [wrapped, bare] = await both('/guarded');
      expect(bare).toEqual({ status: 401, cookies: COOKIES, vary: VARY, challenge: null });
      expect(wrapped).toEqual({ status: 401, cookies: COOKIES, vary: VARY, challenge: 'Bearer' });
    });

    it('keeps every Set-Cookie in an unstreamed batch with a refused call', async () => {
      const [wrapped, bare] = await both(`/open,guarded?batch=1&input=${encodeURIComponent('{}')}`);
      expect(bare).toEqual({ status: 207, cookies: COOKIES, vary: VARY, challenge: null });
      expect(wrapped).toEqual({ status: 207, cookies: COOKIES, vary: VARY, challenge: 'Bearer' });
    });
  });
});

describe('responseHeaderRecord', () => {
  it('gives the Set-Cookie values of a Headers as a list, each other header as its joined value', () => {
    const headers = new Headers([
      ['Set-Cookie', COOKIES[0]!],
      ['Vary', 'Origin'],
      ['set-cookie', COOKIES[1]!],
      ['vary', 'Accept-Encoding'],
      ['Content-Type', 'text/plain'],
    ]);
    expect(responseHeaderRecord(headers)).toEqual({ 'set-cookie': COOKIES, vary: 'Origin, Accept-Encoding', 'content-type': 'text/plain' });
  });

  it('gives a Headers with one Set-Cookie, or none, as it is', () => {
    expect(responseHeaderRecord(new Headers({ 'Set-Cookie': COOKIES[0]! }))).toEqual({ 'set-cookie': [COOKIES[0]] });
    expect(responseHeaderRecord(new Headers({ vary: 'Origin' }))).toEqual({ vary: 'Origin' });
  });

  it('copies a record, lists included, without changing it', () => {
    const record = { 'Set-Cookie': [...COOKIES], vary: 'Origin' };
    const copy = responseHeaderRecord(record);
    copy['x-added'] = 'yes';
    expect(copy).toEqual({ 'Set-Cookie': COOKIES, vary: 'Origin', 'x-added': 'yes' });
    expect(record).toEqual({ 'Set-Cookie': COOKIES, vary: 'Origin' });
  });
});
