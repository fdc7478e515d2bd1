import { createPublicKey } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BENCH_JWT } from '../bench-jwt.js';

/**
 * The Node stacks users pick for a JWT-protected API, each serving the bench's `/bare` and
 * `/items-jwt` routes the way its own documentation writes them: the same ES256 token, the key
 * given locally, `iss` and `aud` checked, scopes `me` and `items` required (403 otherwise), an
 * RFC 6750 challenge on refusal.
 *
 * @example
 * ```ts
 * const server = await startPeerFace('hono');
 * ```
 */
export type PeerFace = 'express' | 'hono' | 'fastify';

/**
 * Every peer face, for argument checking.
 *
 * @example
 * ```ts
 * PEER_FACES.includes('hono'); // true
 * ```
 */
export const PEER_FACES: readonly PeerFace[] = ['express', 'hono', 'fastify'];

const BARE = { token: null, scopes: [] as string[] };
const REQUIRED = ['me', 'items'];
const grants = (scope: unknown) => {
  const granted = typeof scope === 'string' ? scope.split(' ') : [];
  return REQUIRED.every((required) => granted.includes(required));
};
const bearerToken = (authorization: string | undefined) => authorization?.slice('Bearer '.length) ?? '';
const INSUFFICIENT = 'Bearer error="insufficient_scope", scope="me items"';

/**
 * Starts `face` on 127.0.0.1 at a port the OS picks.
 *
 * @example
 * ```ts
 * const server = await startPeerFace('express');
 * ```
 */
export async function startPeerFace(face: PeerFace): Promise<Server> {
  switch (face) {
    case 'express': {
      // express-oauth2-jwt-bearer takes asymmetric keys from a jwksUri only: the app serves its own
      // key set, which the library fetches once and caches.
      const [{ default: express }, { auth, requiredScopes }] = await Promise.all([import('express'), import('express-oauth2-jwt-bearer')]);
      const app = express();
      app.get('/bare', (_req, res) => void res.json(BARE));
      app.get('/jwks', (_req, res) => void res.json({ keys: [BENCH_JWT.publicJwk] }));
      const server = await listen(app.listen(0, '127.0.0.1'));
      const checkJwt = auth({
        issuer: BENCH_JWT.issuer,
        audience: BENCH_JWT.audience,
        jwksUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
        tokenSigningAlg: 'ES256',
      });
      app.get('/items-jwt', checkJwt, requiredScopes(REQUIRED), (req, res) => void res.json({ token: req.auth!.token, scopes: REQUIRED }));
      return server;
    }
    case 'hono': {
      // hono/jwk with the key given locally: with `jwks_uri` it fetches the key set on every request.
      const [{ Hono }, { jwk }, { serve }] = await Promise.all([import('hono'), import('hono/jwk'), import('@hono/node-server')]);
      const app = new Hono<{ Variables: { jwtPayload: { scope?: unknown } } }>();
      app.get('/bare', (c) => c.json(BARE));
      app.use('/items-jwt', jwk({ keys: [BENCH_JWT.publicJwk as never], alg: ['ES256'], verification: { iss: BENCH_JWT.issuer, aud: BENCH_JWT.audience } }));
      app.get('/items-jwt', (c) => {
        const payload = c.get('jwtPayload');
        if (!grants(payload.scope)) return c.json({ error: 'insufficient_scope' }, 403, { 'www-authenticate': INSUFFICIENT });
        return c.json({ token: bearerToken(c.req.header('authorization')), scopes: REQUIRED });
      });
      return listen(serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server);
    }
    case 'fastify': {
      const [{ default: Fastify }, { default: fastifyJwt }] = await Promise.all([import('fastify'), import('@fastify/jwt')]);
      const app = Fastify();
      const publicKey = createPublicKey({ key: BENCH_JWT.publicJwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
      await app.register(fastifyJwt, {
        secret: { public: publicKey, private: '' },
        verify: { algorithms: ['ES256'], allowedIss: BENCH_JWT.issuer, allowedAud: BENCH_JWT.audience },
      });
      app.get('/bare', async () => BARE);
      app.get('/items-jwt', async (request, reply) => {
        let payload: { scope?: unknown };
        try {
          payload = await request.jwtVerify();
        } catch {
          return reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"').send({ error: 'invalid_token' });
        }
        if (!grants(payload.scope)) return reply.code(403).header('www-authenticate', INSUFFICIENT).send({ error: 'insufficient_scope' });
        return { token: bearerToken(request.headers.authorization), scopes: REQUIRED };
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return app.server;
    }
  }
}

async function listen(server: Server): Promise<Server> {
  if (server.listening && server.address() !== null) return server;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  return server;
}
