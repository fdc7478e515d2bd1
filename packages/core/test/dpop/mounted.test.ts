/**
 * docs/contract.md#dpop: a proof's `htu` names the URL the client used (RFC 9449 §4.3). Express
 * and Connect mount a handler below a path (`app.use('/trpc', createExpressMiddleware(…))`, the
 * way tRPC's documentation mounts it) by cutting the mount path off `req.url` and keeping the
 * target the client sent as `req.originalUrl`: a reader, and a token endpoint, check the proof
 * against the latter, never against the path the router handed on.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
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
const MOUNT = '/trpc';

/** What Express and Connect do to a request for a handler mounted at `mount`: `req.url` below it, the target as `originalUrl`. */
function mounted(mount: string, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const target = req.url ?? '/';
    if (!target.startsWith(`${mount}/`)) return void res.writeHead(404).end();
    Object.assign(req, { originalUrl: target, url: target.slice(mount.length) });
    handler(req, res);
  };
}

describe('DPoP through tRPC mounted below a path, as Express and Connect mount it', () => {
  let key: ProofKey;
  let origin: string;
  const seenUrls: string[] = [];
  const t = initTRPC.context<{ req?: unknown }>().create();
  const server = createServer();
  beforeAll(async () => {
    key = await proofKey();
    const jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
    const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
    const reader = oauth2PasswordBearer({
      tokenUrl: '/token',
      origin: ORIGIN,
      verify: async (_token, options) => (seenUrls.push(options?.request.url ?? ''), { scopes: [], cnf: { jkt } }),
      dpop: { mode: 'required', proofs },
    });
    const token = tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), dpop: { proofs, origin: ORIGIN, required: true } })
      .grant('client_credentials', ({ dpop }) => ({ access_token: 'issued', token_type: dpop ? 'DPoP' : 'Bearer' }))
      .build();
    const router = t.router({ me: t.procedure.use(reader).query(() => 'ok'), token });
    const handler = createHTTPHandler({ router, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() });
    server.on('request', mounted(MOUNT, handler));
    origin = await servingOnLoopback(server);
  });
  afterAll(() => closing(server));

  const me = async (htu: string) => {
    const proof = await signProof(key, { method: 'GET', url: htu, accessToken: 'tok' });
    const response = await fetch(`${origin}${MOUNT}/me`, { headers: { authorization: 'DPoP tok', dpop: proof } });
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };

  it('accepts a proof of the URL the client used, and the verifier sees that URL', async () => {
    seenUrls.length = 0;
    expect(await me(`${ORIGIN}${MOUNT}/me`)).toEqual({ status: 200, challenge: null });
    expect(seenUrls).toEqual([`${ORIGIN}${MOUNT}/me`]);
  });

  it('refuses a proof of the path below the mount, which the client did not call', async () => {
    const answer = await me(`${ORIGIN}/me`);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toContain('The DPoP proof htu does not match the request URL');
  });

  it('checks a token request proof against the URL the client used', async () => {
    const post = async (htu: string) =>
      fetch(`${origin}${MOUNT}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', dpop: await signProof(key, { method: 'POST', url: htu }) },
        body: JSON.stringify({ grant_type: 'client_credentials' }),
      });
    const issued = await post(`${ORIGIN}${MOUNT}/token`);
    expect(issued.status).toBe(200);
    expect(((await issued.json()) as { result: { data: { token_type: string } } }).result.data.token_type).toBe('DPoP');
    expect((await post(`${ORIGIN}/token`)).status).toBe(400);
  });
});
