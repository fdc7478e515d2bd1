/**
 * docs/contract.md#dpop: behind a proxy that serves the API below a path and strips that path off
 * before the request reaches the application (clients call `/svc/me`, the application sees `/me`), a proof names the URL the client used. With `pathPrefix: '/svc'` beside `origin`,
 * a reader and a token endpoint check it against that URL, and a verifier sees it; a proof of the
 * path the application sees, which no client called, is refused.
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
const PREFIX = '/svc';

/** A reverse proxy on loopback that forwards `/svc/…` to `upstream` as `/…` and answers 404 to anything else. */
function strippingProxy(upstream: () => AddressInfo) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const target = req.url ?? '/';
    if (!target.startsWith(`${PREFIX}/`)) return void res.writeHead(404).end();
    const { port } = upstream();
    const outgoing = forward({ host: '127.0.0.1', port, method: req.method, path: target.slice(PREFIX.length), headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    outgoing.on('error', () => res.writeHead(502).end());
    req.pipe(outgoing);
  };
}

describe('DPoP behind a proxy that strips a path prefix', () => {
  let key: ProofKey;
  let origin: string;
  const seenUrls: string[] = [];
  const t = initTRPC.context<{ req?: unknown; publicOrigin: string }>().create();
  const app = createServer();
  const proxy = createServer();
  beforeAll(async () => {
    key = await proofKey();
    const jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
    const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
    const reader = oauth2PasswordBearer({
      tokenUrl: `${PREFIX}/token`,
      origin: ORIGIN,
      pathPrefix: PREFIX,
      verify: async (_token, options) => (seenUrls.push(options?.request.url ?? ''), { scopes: [], cnf: { jkt } }),
      dpop: { mode: 'required', proofs },
    });
    const issue = ({ dpop }: { dpop: unknown }) => ({ access_token: 'issued', token_type: dpop ? 'DPoP' : 'Bearer' });
    const authenticateClient = () => ({ id: null });
    const token = tokenEndpoint(t.procedure, { authenticateClient, dpop: { proofs, origin: ORIGIN, pathPrefix: `${PREFIX}/`, required: true } })
      .grant('client_credentials', issue)
      .build();
    // Options read from ctx per request take the prefix the same way.
    const tokenFromCtx = tokenEndpoint(t.procedure, { authenticateClient, dpop: (ctx) => ({ proofs, origin: ctx.publicOrigin, pathPrefix: PREFIX, required: true }) })
      .grant('client_credentials', issue)
      .build();
    const router = t.router({ me: t.procedure.use(reader).query(() => 'ok'), token, tokenFromCtx });
    app.on('request', createHTTPHandler({ router, createContext: ({ req }) => ({ req, publicOrigin: ORIGIN }), responseMeta: oauth2ResponseMeta() }));
    await servingOnLoopback(app);
    proxy.on('request', strippingProxy(() => app.address() as AddressInfo));
    origin = await servingOnLoopback(proxy);
  });
  afterAll(() => Promise.all([closing(proxy), closing(app)]));

  const me = async (htu: string) => {
    const proof = await signProof(key, { method: 'GET', url: htu, accessToken: 'tok' });
    const response = await fetch(`${origin}${PREFIX}/me`, { headers: { authorization: 'DPoP tok', dpop: proof } });
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };

  it('accepts a proof of the URL the client used, and the verifier sees that URL', async () => {
    seenUrls.length = 0;
    expect(await me(`${ORIGIN}${PREFIX}/me`)).toEqual({ status: 200, challenge: null });
    expect(seenUrls).toEqual([`${ORIGIN}${PREFIX}/me`]);
  });

  it('refuses a proof of the path the application sees, which the client did not call', async () => {
    const answer = await me(`${ORIGIN}/me`);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toContain('The DPoP proof htu does not match the request URL');
  });

  it.each(['token', 'tokenFromCtx'])('checks a token request proof (%s) against the URL the client used', async (procedure) => {
    const post = async (htu: string) =>
      fetch(`${origin}${PREFIX}/${procedure}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', dpop: await signProof(key, { method: 'POST', url: htu }) },
        body: JSON.stringify({ grant_type: 'client_credentials' }),
      });
    const issued = await post(`${ORIGIN}${PREFIX}/${procedure}`);
    expect(issued.status).toBe(200);
    expect(((await issued.json()) as { result: { data: { token_type: string } } }).result.data.token_type).toBe('DPoP');
    expect((await post(`${ORIGIN}/${procedure}`)).status).toBe(400);
  });

  it('a token endpoint refuses a prefix that is not a path, and a path in its origin, when it is built', () => {
    const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
    const build = (dpop: { origin: string; pathPrefix?: string }) => () =>
      tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), dpop: { proofs, ...dpop } })
        .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' }))
        .build();
    expect(build({ origin: ORIGIN, pathPrefix: 'svc' })).toThrow(/tokenEndpoint: dpop.pathPrefix must be a path/);
    expect(build({ origin: `${ORIGIN}${PREFIX}` })).toThrow(/pathPrefix/);
    expect(build({ origin: ORIGIN, pathPrefix: PREFIX })).not.toThrow();
  });
});
