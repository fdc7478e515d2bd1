import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { TRPCError } from '@trpc/server';
import {
  createOAuth2HTTPServer,
  createOAuth2OpenApiFetchHandler,
  createOAuth2OpenApiHttpHandler,
  oauth2FetchRequestHandler,
} from '../../../src/index.js';
import { hostileRouter } from './hostile-app.js';

/** trpc-to-openapi's two handlers (REST, under `/api`) and this package's two tRPC adapters (under `/trpc`). */
export type Face = 'rest-standalone' | 'rest-fetch' | 'trpc-standalone' | 'trpc-fetch';
export const FACES: readonly Face[] = ['rest-standalone', 'rest-fetch', 'trpc-standalone', 'trpc-fetch'];
export const isRest = (face: Face) => face.startsWith('rest-');

/** The body limit of the servers under test. */
export const MAX_BODY = 1024 * 1024;

export interface RunningFace {
  readonly face: Face;
  readonly origin: string;
  /** The path prefix of the face's routes: `/api` or `/trpc`. */
  readonly prefix: string;
  close(): Promise<void>;
}

const listening = (server: Server) =>
  new Promise<number>((resolve) => server.once('listening', () => resolve((server.address() as AddressInfo).port)));

const closing = (server: Server) =>
  new Promise<void>((resolve, reject) => {
    server.closeAllConnections();
    server.close((error) => (error ? reject(error) : resolve()));
  });

/**
 * Serves the hostile app on one face, with a body limit, logging every failure in full
 * (`console.error(error)`: message, stack and cause), as tRPC's documentation suggests. The
 * `onError` is the plain one a user writes: the handlers wrap it with `oauth2OnError` themselves.
 */
export async function serveHostileFace(face: Face): Promise<RunningFace> {
  const common = {
    router: hostileRouter,
    createContext: ({ req }: { req: unknown }) => ({ req }),
    onError: ({ error }: { error: TRPCError }) => console.error(error),
    maxBodySize: MAX_BODY,
  };
  let server: Server;
  if (face === 'rest-standalone') {
    const rest = createOAuth2OpenApiHttpHandler(common);
    server = createServer((req, res) => {
      req.url = req.url!.replace(/^\/api/, '');
      void rest(req, res);
    });
    server.listen(0, '127.0.0.1');
  } else if (face === 'trpc-standalone') {
    server = createOAuth2HTTPServer({ ...common, basePath: '/trpc/' });
    server.listen(0, '127.0.0.1');
  } else {
    const fetch =
      face === 'rest-fetch'
        ? (req: Request) => createOAuth2OpenApiFetchHandler({ ...common, endpoint: '/api', req })
        : (req: Request) => oauth2FetchRequestHandler({ ...common, endpoint: '/trpc', req });
    server = serve({ hostname: '127.0.0.1', port: 0, fetch }) as Server;
  }
  const port = await listening(server);
  return { face, origin: `http://127.0.0.1:${port}`, prefix: isRest(face) ? '/api' : '/trpc', close: () => closing(server) };
}
