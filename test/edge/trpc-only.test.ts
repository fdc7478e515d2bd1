/**
 * The tRPC fetch entry alone (`@trpc-oauth2/openapi/adapters/trpc-fetch`) bundles for a worker
 * target with no Node built-in anywhere in its graph, where `/adapters/fetch` (which also holds
 * the REST handler, and so trpc-to-openapi and its Node adapters) does not; and the bundle serves
 * verified calls inside edge-runtime.
 */
import { createServer, type Server } from 'node:http';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { EdgeRuntime, runServer } from 'edge-runtime';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeEnv } from './app/worker.js';
import { bundleWithoutNode } from './bundle.js';

const env = { issuer: 'https://issuer.test', audience: 'https://api.test' };
let jwks: Server;
let edge: Awaited<ReturnType<typeof runServer>>;
let sign: (scope: string) => Promise<string>;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const key = { ...(await exportJWK(publicKey)), kid: 'edge', alg: 'ES256', use: 'sig' };
  sign = (scope) =>
    new SignJWT({ scope })
      .setProtectedHeader({ alg: 'ES256', kid: 'edge', typ: 'at+jwt' })
      .setIssuer(env.issuer)
      .setAudience(env.audience)
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  jwks = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [key] }));
  }).listen(0, '127.0.0.1');
  const edgeEnv: EdgeEnv = { ...env, jwksUrl: `http://127.0.0.1:${await listening(jwks)}/jwks` };
  const runtime = new EdgeRuntime({
    initialCode: await bundleWithoutNode(new URL('app/trpc-worker.ts', import.meta.url).pathname),
    extend: (context) => Object.assign(context, { EDGE_ENV: edgeEnv }),
  });
  edge = await runServer({ runtime, port: 0, host: '127.0.0.1' });
}, 30_000);

afterAll(async () => {
  await edge?.close();
  if (jwks) await closing(jwks);
});

describe('the tRPC fetch entry, bundled without Node built-ins', () => {
  it('answers a verified call, and refuses one without a token', async () => {
    const good = await fetch(new URL('/trpc/me', edge.url), { headers: { authorization: `Bearer ${await sign('me')}` } });
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ result: { data: { subject: 'alice' } } });
    const none = await fetch(new URL('/trpc/me', edge.url));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('where the entry with the REST handler does not bundle so', async () => {
    const app = new URL('app/worker.ts', import.meta.url).pathname;
    await expect(bundleWithoutNode(app)).rejects.toThrow(/imports the Node builtin/);
  });
});
