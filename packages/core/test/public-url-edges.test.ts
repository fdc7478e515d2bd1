/**
 * The URL a verifier sees and a DPoP proof must name, for requests and options at the edges of
 * what a URL parser reads (docs/contract.md#verified-readers, #dpop): the path prefix stays
 * between the origin and the path, whatever the client wrote in its Host header or request
 * target, and options that are not what the contract accepts are refused.
 */
import net from 'node:net';
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal, type VerifyOptions } from '../src/index.js';
import { dpopProofVerifier } from '../src/dpop/index.js';
import { requestTarget } from '../src/dpop/request-target.js';
import { tokenEndpoint } from '../src/token-endpoint/index.js';
import { verifyRequestOf } from '../src/readers/verify-request.js';
import { pathPrefixOf, publicOrigin } from '../src/request-url.js';
import { serveRouter, type RunningServer } from './support/serve.js';

const seen: string[] = [];
const verify = async (_token: string, options?: VerifyOptions): Promise<Principal> => {
  seen.push(options!.request.url);
  return { scopes: [] };
};

const t = initTRPC.context<{ req?: unknown }>().create();
const router = t.router({
  prefixed: t.procedure.use(oauth2PasswordBearer({ tokenUrl: 'token', verify, pathPrefix: '/svc' })).query(() => 'ok'),
  plain: t.procedure.use(oauth2PasswordBearer({ tokenUrl: 'token', verify })).query(() => 'ok'),
});

/** Sends a request as written (a Host header and a request target no client library would send), and answers its status. */
const send = (server: RunningServer, target: string, host: string) =>
  new Promise<number>((resolve, reject) => {
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer any\r\nConnection: close\r\n\r\n`);
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(Number(answer.split(' ')[1])));
  });

let standalone: RunningServer;
beforeAll(async () => {
  standalone = await serveRouter(router, 'standalone');
});
afterAll(() => standalone.close());

describe('over tRPC’s standalone adapter, a reader with pathPrefix and no origin', () => {
  it.each(['x.example#', 'x.example?', 'x.example/p'])('a Host header %j that is not a host neither moves nor drops the prefix', async (host) => {
    seen.length = 0;
    expect(await send(standalone, '/trpc/prefixed', host)).toBe(200);
    const url = new URL(seen.at(-1)!);
    expect(url.pathname).toBe('/svc/trpc/prefixed');
    expect(url.hash).toBe('');
  });

  it('a Host header with a path adds no path the client did not send, without a prefix either', async () => {
    seen.length = 0;
    expect(await send(standalone, '/trpc/plain', 'x.example/p')).toBe(200);
    expect(new URL(seen.at(-1)!).pathname).toBe('/trpc/plain');
  });

  it('an absolute-form target of another scheme (which tRPC routes by its path) is the path under http:// + Host, not a fault', async () => {
    seen.length = 0;
    expect(await send(standalone, 'foo://x/trpc/prefixed', 'x.example')).toBe(200);
    expect(seen.at(-1)).toBe('http://x.example/svc/trpc/prefixed');
    expect(await send(standalone, 'foo://x/trpc/plain', 'x.example')).toBe(200);
    expect(seen.at(-1)).toBe('http://x.example/trpc/plain');
  });
});

describe('a request target that a URL parser reads as an opaque URL', () => {
  // `a:b` parses as a URL of scheme `a` whose path is `b`, with no leading slash.
  const ctx = { req: { method: 'GET', url: 'a:b', headers: { host: 'api.example' } } };

  it('stays below the prefix, one separator after it, for the verifier and the proof alike', () => {
    const verifierUrl = verifyRequestOf({ ctx }, ctx.req.headers, 'https://api.example', '/svc').url;
    const proofUrl = requestTarget(ctx, 'https://api.example/svc')!.url;
    for (const url of [verifierUrl, proofUrl]) expect(new URL(url).pathname.startsWith('/svc/')).toBe(true);
  });
});

describe('options the contract refuses', () => {
  it('a pathPrefix that is `//host` once the URL parser drops its tab is refused, not read as no prefix', () => {
    expect(() => pathPrefixOf('/\t/evil.example', 'pathPrefix')).toThrow(TypeError);
    expect(() => oauth2PasswordBearer({ tokenUrl: 'token', verify, origin: 'https://api.example', pathPrefix: '/\n/evil.example' })).toThrow(TypeError);
  });

  it.each(['https://api.example/svc/..', 'https://api.example/svc/../', 'https://api.example/./', 'https://api.example/%2e%2e/', 'https://api.example//'])('an origin with a path that resolves to `/`, %j, is refused: a prefix goes in pathPrefix', (origin) => {
    expect(() => publicOrigin(origin, 'origin')).toThrow(/origin only/);
    expect(() => oauth2PasswordBearer({ tokenUrl: 'token', verify, origin, pathPrefix: '/svc' })).toThrow(TypeError);
  });

  it.each(['https://@api.example', 'https://:@api.example'])('an origin with (empty) userinfo %j is refused', (origin) => {
    expect(() => publicOrigin(origin, 'origin')).toThrow(TypeError);
  });
});

describe('a token endpoint whose DPoP options come from ctx', () => {
  // docs/contract.md#dpop: an origin or path prefix that is not one is a TypeError "from ctx,
  // for that request", whether or not the request carries a proof.
  const tc = initTRPC.context<{ origin: string; pathPrefix?: string }>().create();
  const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
  const token = tokenEndpoint(tc.procedure, { authenticateClient: () => ({ id: null }), dpop: (ctx) => ({ proofs, origin: ctx.origin, pathPrefix: ctx.pathPrefix }) })
    .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' }))
    .build();
  const caller = tc.createCallerFactory(tc.router({ token }));

  it.each([{ origin: 'https://as.example/svc' }, { origin: 'https://as.example', pathPrefix: 'svc' }])('refuses %j for a request without a proof too', async (ctx) => {
    await expect(caller(ctx).token({ grant_type: 'client_credentials' })).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
  });

  it('answers a request without a proof when they are an origin and a path', async () => {
    expect(await caller({ origin: 'https://as.example', pathPrefix: '/svc' }).token({ grant_type: 'client_credentials' })).toEqual({ access_token: 'a', token_type: 'Bearer' });
  });
});
