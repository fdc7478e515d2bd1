/**
 * docs/contract.md#dpop: a proof's `htu` names the URL the client used (RFC 9449 §4.3), whatever
 * an HTTP layer in front did to the path before the application saw it:
 * - Express and Connect mount a handler below a path (`app.use('/trpc', createExpressMiddleware(…))`,
 *   the way tRPC's documentation mounts it) by cutting the mount path off `req.url` and keeping the
 *   target the client sent as `req.originalUrl`;
 * - a reverse proxy serves the API below a path and strips it before forwarding (clients call
 *   `/svc/me`, the application sees `/me`), which the application declares as `pathPrefix`
 *   beside `origin`.
 * Either way a reader, and a token endpoint (with its options fixed or read from ctx), check the
 * proof against the URL the client used, and a verifier sees that URL; a proof of the path the
 * application sees, which no client called, is refused.
 */
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initTRPC } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { closing, servingOnLoopback } from '@trpc-oauth2/test-kit';
import { calculateJwkThumbprint } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, oauth2ResponseMeta } from '../../src/index.js';
import { dpopProofVerifier } from '../../src/dpop/index.js';
import { tokenEndpoint } from '../../src/token-endpoint/index.js';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';

const ORIGIN = 'https://api.example.test';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** What Express and Connect do to a request for a handler mounted at `mount`: `req.url` below it, the target as `originalUrl`. */
function mounted(mount: string, handler: Handler): Handler {
  return (req, res) => {
    const target = req.url ?? '/';
    if (!target.startsWith(`${mount}/`)) return void res.writeHead(404).end();
    Object.assign(req, { originalUrl: target, url: target.slice(mount.length) });
    handler(req, res);
  };
}

/** A reverse proxy that forwards `prefix/…` to the application on `upstream` as `/…`, and answers 404 to anything else. */
function strippingProxy(prefix: string, upstream: () => AddressInfo): Handler {
  return (req, res) => {
    const target = req.url ?? '/';
    if (!target.startsWith(`${prefix}/`)) return void res.writeHead(404).end();
    const outgoing = forward({ host: '127.0.0.1', port: upstream().port, method: req.method, path: target.slice(prefix.length), headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    outgoing.on('error', () => res.writeHead(502).end());
    req.pipe(outgoing);
  };
}

/** How one layer in front serves the application's handler, and what the application says of it. */
interface Layer {
  /** The path the client's URLs have and the application's do not. */
  prefix: string;
  /** What the reader and the token endpoint are told besides `origin`. */
  options: { pathPrefix?: string };
  /** Serves `handler` behind the layer; resolves to the origin clients call, and what stops it. */
  serve(handler: Handler): Promise<{ origin: string; close: () => Promise<unknown> }>;
}

const LAYERS: Record<string, Layer> = {
  'mounted below /trpc, as Express and Connect mount it': {
    prefix: '/trpc',
    options: {},
    serve: async (handler) => {
      const server = createServer(mounted('/trpc', handler));
      return { origin: await servingOnLoopback(server), close: () => closing(server) };
    },
  },
  'behind a proxy that strips /svc, declared as pathPrefix': {
    prefix: '/svc',
    options: { pathPrefix: '/svc/' },
    serve: async (handler) => {
      const app = createServer(handler);
      await servingOnLoopback(app);
      const proxy = createServer(strippingProxy('/svc', () => app.address() as AddressInfo));
      return { origin: await servingOnLoopback(proxy), close: () => Promise.all([closing(proxy), closing(app)]) };
    },
  },
};

describe.each(Object.entries(LAYERS))('DPoP through tRPC %s', (_, layer) => {
  const { prefix } = layer;
  let key: ProofKey;
  let served: { origin: string; close: () => Promise<unknown> };
  const seenUrls: string[] = [];
  const t = initTRPC.context<{ req?: unknown; publicOrigin: string }>().create();
  beforeAll(async () => {
    key = await proofKey();
    const jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
    const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
    const reader = oauth2PasswordBearer({
      tokenUrl: `${prefix}/token`,
      origin: ORIGIN,
      ...layer.options,
      verify: async (_token, options) => (seenUrls.push(options?.request.url ?? ''), { scopes: [], cnf: { jkt } }),
      dpop: { mode: 'required', proofs },
    });
    const issue = ({ dpop }: { dpop: unknown }) => ({ access_token: 'issued', token_type: dpop ? 'DPoP' : 'Bearer' });
    const authenticateClient = () => ({ id: null });
    const token = tokenEndpoint(t.procedure, { authenticateClient, dpop: { proofs, origin: ORIGIN, ...layer.options, required: true } })
      .grant('client_credentials', issue)
      .build();
    // Options read from ctx per request take the path the same way.
    const tokenFromCtx = tokenEndpoint(t.procedure, { authenticateClient, dpop: (ctx) => ({ proofs, origin: ctx.publicOrigin, ...layer.options, required: true }) })
      .grant('client_credentials', issue)
      .build();
    const router = t.router({ me: t.procedure.use(reader).query(() => 'ok'), token, tokenFromCtx });
    served = await layer.serve(createHTTPHandler({ router, createContext: ({ req }) => ({ req, publicOrigin: ORIGIN }), responseMeta: oauth2ResponseMeta() }));
  });
  afterAll(() => served.close());

  const me = async (htu: string) => {
    const proof = await signProof(key, { method: 'GET', url: htu, accessToken: 'tok' });
    const response = await fetch(`${served.origin}${prefix}/me`, { headers: { authorization: 'DPoP tok', dpop: proof } });
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };

  it('accepts a proof of the URL the client used, and the verifier sees that URL', async () => {
    seenUrls.length = 0;
    expect(await me(`${ORIGIN}${prefix}/me`)).toEqual({ status: 200, challenge: null });
    expect(seenUrls).toEqual([`${ORIGIN}${prefix}/me`]);
  });

  it('refuses a proof of the path the application sees, which the client did not call', async () => {
    const answer = await me(`${ORIGIN}/me`);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toContain('The DPoP proof htu does not match the request URL');
  });

  it.each(['token', 'tokenFromCtx'])('checks a token request proof (%s) against the URL the client used', async (procedure) => {
    const post = async (htu: string) =>
      fetch(`${served.origin}${prefix}/${procedure}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', dpop: await signProof(key, { method: 'POST', url: htu }) },
        body: JSON.stringify({ grant_type: 'client_credentials' }),
      });
    const issued = await post(`${ORIGIN}${prefix}/${procedure}`);
    expect(issued.status).toBe(200);
    expect(((await issued.json()) as { result: { data: { token_type: string } } }).result.data.token_type).toBe('DPoP');
    expect((await post(`${ORIGIN}/${procedure}`)).status).toBe(400);
  });
});

describe('a token endpoint checks its origin and path prefix when it is built', () => {
  const t = initTRPC.create();
  const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
  const build = (dpop: { origin: string; pathPrefix?: string }) => () =>
    tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), dpop: { proofs, ...dpop } })
      .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' }))
      .build();

  it('refuses a prefix that is not a path, and a path in the origin, naming the option it belongs in', () => {
    expect(build({ origin: ORIGIN, pathPrefix: 'svc' })).toThrow(/tokenEndpoint: dpop.pathPrefix must be a path/);
    expect(build({ origin: `${ORIGIN}/svc` })).toThrow(/pathPrefix/);
    expect(build({ origin: ORIGIN, pathPrefix: '/svc' })).not.toThrow();
  });
});
