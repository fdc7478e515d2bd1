import { createServer, type Server } from 'node:http';
import { PEER_FACES, startPeerFace, type PeerFace } from './peer-faces.js';

/**
 * How our side serves the bench's router: the tRPC standalone (node:http) handler of
 * `@trpc-oauth2/openapi`, tRPC's own standalone adapter alone (with the challenge headers), tRPC's fetch
 * adapter (on @hono/node-server), the REST handler of `@trpc-oauth2/openapi` (trpc-to-openapi
 * with form bodies and challenge headers), trpc-to-openapi's own REST handler alone (which
 * answers form bodies 415), the same two REST handlers for Fetch runtimes (on
 * @hono/node-server, as tRPC's fetch adapter), or plain node:http answering the bare route's body with no framework
 * at all (the floor every Node face stands on); or one of the other Node stacks of the peer table
 * (see `startPeerFace`).
 *
 * @example
 * ```ts
 * const face: Face = 'rest';
 * ```
 */
export type Face = 'trpc-standalone' | 'trpc-standalone-plain' | 'trpc-fetch' | 'rest' | 'rest-plain' | 'rest-fetch' | 'rest-fetch-plain' | 'node-http' | PeerFace;

/**
 * Every face, for argument checking.
 *
 * @example
 * ```ts
 * FACES.includes(process.argv[2] as Face);
 * ```
 */
export const FACES: readonly Face[] = ['trpc-standalone', 'trpc-standalone-plain', 'trpc-fetch', 'rest', 'rest-plain', 'rest-fetch', 'rest-fetch-plain', 'node-http', ...PEER_FACES];

const BARE_BODY = JSON.stringify({ token: null, scopes: [] });

/**
 * Starts `face` on 127.0.0.1 at a port the OS picks. Each face imports only what it uses, so
 * that a server's memory figures are its own (node:http alone loads no framework).
 *
 * @example
 * ```ts
 * const server = await startFace('trpc-standalone');
 * ```
 */
export async function startFace(face: Face): Promise<Server> {
  const createContext = ({ req }: { req: { headers: unknown } }) => ({ req });
  const core = () => import('@trpc-oauth2/core');
  const router = async () => (await import('./app-router.js')).appRouter;
  // The Fetch faces, each on @hono/node-server.
  const onNodeServer = async (fetch: (req: Request) => Response | Promise<Response>) =>
    (await import('@hono/node-server')).serve({ hostname: '127.0.0.1', port: 0, fetch }) as Server;
  let server: Server;
  switch (face) {
    case 'trpc-standalone': {
      const [{ createOAuth2HTTPServer }, appRouter] = await Promise.all([import('@trpc-oauth2/openapi/adapters/standalone'), router()]);
      server = createOAuth2HTTPServer({ router: appRouter, basePath: '/trpc/', createContext });
      break;
    }
    case 'trpc-standalone-plain': {
      const [{ createHTTPServer }, { oauth2ResponseMeta }, appRouter] = await Promise.all([
        import('@trpc/server/adapters/standalone'),
        core(),
        router(),
      ]);
      server = createHTTPServer({ router: appRouter, basePath: '/trpc/', createContext, responseMeta: oauth2ResponseMeta() });
      break;
    }
    case 'trpc-fetch': {
      const [{ fetchRequestHandler }, { oauth2ResponseMeta }, appRouter] = await Promise.all([import('@trpc/server/adapters/fetch'), core(), router()]);
      const responseMeta = oauth2ResponseMeta();
      server = await onNodeServer((req) => fetchRequestHandler({ endpoint: '/trpc', req, router: appRouter, createContext, responseMeta }));
      break;
    }
    case 'rest': {
      const [{ createOAuth2OpenApiHttpHandler }, appRouter] = await Promise.all([import('@trpc-oauth2/openapi/adapters/standalone'), router()]);
      const handler = createOAuth2OpenApiHttpHandler({ router: appRouter, createContext });
      server = createServer((req, res) => void handler(req, res));
      break;
    }
    case 'rest-plain': {
      const [{ createOpenApiHttpHandler }, { oauth2ResponseMeta }, appRouter] = await Promise.all([
        import('trpc-to-openapi'),
        core(),
        router(),
      ]);
      const handler = createOpenApiHttpHandler({
        router: appRouter,
        createContext,
        responseMeta: oauth2ResponseMeta() as never,
      });
      server = createServer((req, res) => void handler(req, res));
      break;
    }
    case 'rest-fetch': {
      const [{ createOAuth2OpenApiFetchHandler }, appRouter] = await Promise.all([import('@trpc-oauth2/openapi/adapters/fetch'), router()]);
      server = await onNodeServer((req) => createOAuth2OpenApiFetchHandler({ req, router: appRouter, createContext }));
      break;
    }
    case 'rest-fetch-plain': {
      const [{ createOpenApiFetchHandler }, { oauth2ResponseMeta }, appRouter] = await Promise.all([import('trpc-to-openapi'), core(), router()]);
      const responseMeta = oauth2ResponseMeta() as never;
      // Its `endpoint` is cut from the URL wherever it occurs; a space never occurs in a URL, so
      // the routes stay at the root, as on every other REST face.
      server = await onNodeServer((req) => createOpenApiFetchHandler({ endpoint: '/ ', req, router: appRouter, createContext, responseMeta }));
      break;
    }
    case 'express':
    case 'hono':
    case 'fastify':
      return startPeerFace(face);
    case 'node-http':
      server = createServer((_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(BARE_BODY);
      });
      break;
  }
  if (!server.listening) server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    if (server.listening && server.address() !== null) return resolve();
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  return server;
}
