/**
 * A bundled edge function served by Vercel's edge-runtime on 127.0.0.1, with the key set its
 * `jwtVerifier` reads served by the test on loopback, and tokens signed with that set's key.
 */
import { createServer } from 'node:http';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { EdgeRuntime, runServer } from 'edge-runtime';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { EdgeEnv } from './app/worker.js';

const ENV = { issuer: 'https://issuer.test', audience: 'https://api.test' };

/** A running edge function: its URL, a signer of its issuer's tokens, and `close()`. */
export interface EdgeFunction {
  readonly url: string;
  sign(scope: string, claims?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** Runs `code` (a bundle of a function of test/edge/app) with `EDGE_ENV` naming a key set served here. */
export async function serveEdgeFunction(code: string): Promise<EdgeFunction> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const key = { ...(await exportJWK(publicKey)), kid: 'edge', alg: 'ES256', use: 'sig' };
  const jwks = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [key] }));
  }).listen(0, '127.0.0.1');
  const edgeEnv: EdgeEnv = { ...ENV, jwksUrl: `http://127.0.0.1:${await listening(jwks)}/jwks` };
  const runtime = new EdgeRuntime({ initialCode: code, extend: (context) => Object.assign(context, { EDGE_ENV: edgeEnv }) });
  const edge = await runServer({ runtime, port: 0, host: '127.0.0.1' });
  return {
    url: edge.url,
    sign: (scope, claims = {}) =>
      new SignJWT({ scope, client_id: 'app', ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'edge', typ: 'at+jwt' })
        .setIssuer(ENV.issuer)
        .setAudience(ENV.audience)
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('5m')
        .setJti(crypto.randomUUID())
        .sign(privateKey),
    close: async () => {
      await edge.close();
      await closing(jwks);
    },
  };
}
