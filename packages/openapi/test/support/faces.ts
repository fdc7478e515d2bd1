import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { serve, type HttpBindings } from '@hono/node-server';
import type { AnyTRPCRouter, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { ProtectedResourceMetadata } from '../../src/index.js';
import type { AuthorizationServerMetadata } from '@trpc-oauth2/core/token-endpoint';
import { createOAuth2OpenApiFetchHandler, oauth2FetchRequestHandler } from '../../src/adapters/fetch.js';
import { createOAuth2HTTPServer, createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';
import { closing, listening } from '@trpc-oauth2/test-kit';

/** The four HTTP faces a router is served on: trpc-to-openapi's two handlers and tRPC's two adapters. */
export type Face = 'rest-standalone' | 'rest-fetch' | 'trpc-standalone' | 'trpc-fetch';
export const REST_FACES = ['rest-standalone', 'rest-fetch'] as const satisfies readonly Face[];
export const TRPC_FACES = ['trpc-standalone', 'trpc-fetch'] as const satisfies readonly Face[];
export const FACES: readonly Face[] = [...REST_FACES, ...TRPC_FACES];

export const isRest = (face: Face) => face.startsWith('rest-');

/** A server on 127.0.0.1 at a port the OS picked; `errors` are what the adapter reported to `onError`. */
export interface RunningFace {
  readonly face: Face;
  readonly router: AnyTRPCRouter;
  readonly origin: string;
  readonly errors: TRPCError[];
  close(): Promise<void>;
}

export interface ServeOptions {
  maxBodySize?: number;
  /** The most calls one tRPC batch may hold (tRPC faces only). */
  maxBatchSize?: number;
  /** Protected resource metadata each face serves at its well-known paths. */
  resourceMetadata?: ProtectedResourceMetadata;
  /** Authorization server metadata each face serves at its well-known path. */
  authorizationServerMetadata?: AuthorizationServerMetadata;
  /** The application's `responseMeta`, which each face wraps with the challenge headers. */
  responseMeta?: (opts: { errors: readonly unknown[] }) => { status?: number; headers?: Headers | Record<string, string> };
  /** Replaces the default `onError`, which collects errors on `errors`. */
  onError?: (opts: { error: TRPCError }) => void;
  /**
   * `undefined` serves the face with no `createContext` at all; the default one puts `req` on
   * ctx. One that also puts tRPC's `info` there lets the readers see `connectionParams`.
   */
  createContext?: undefined | ((opts: { req: unknown; info?: unknown }) => object);
}

/** Serves `router` on one face: REST under `/api`, tRPC under `/trpc`. */
export async function serveFace(router: AnyTRPCRouter, face: Face, options: ServeOptions = {}): Promise<RunningFace> {
  const errors: TRPCError[] = [];
  const common = {
    router,
    createContext: ({ req }: { req: unknown }) => ({ req }),
    onError: ({ error }: { error: TRPCError }) => void errors.push(error),
    ...options,
  };
  let server: Server;
  if (face === 'rest-standalone') {
    // Mounted at `/api` as an application mounts it: readers and DPoP proofs see the URL the client used.
    const rest = createOAuth2OpenApiHttpHandler({ ...common, basePath: '/api' });
    server = createServer((req, res) => void rest(req, res));
    server.listen(0, '127.0.0.1');
  } else if (face === 'trpc-standalone') {
    server = createOAuth2HTTPServer({ ...common, basePath: '/trpc/' });
    server.listen(0, '127.0.0.1');
  } else {
    const handle =
      face === 'rest-fetch'
        ? (req: Request) => createOAuth2OpenApiFetchHandler({ ...common, endpoint: '/api', req })
        : (req: Request) => oauth2FetchRequestHandler({ ...common, endpoint: '/trpc', req });
    // Served over HTTP/1 (`serve` without `createServer`): the bindings are Node's request and response.
    const fetch = (req: Request, { incoming, outgoing }: HttpBindings) => {
      drainWhenAnswered(req, incoming, outgoing);
      return handle(req);
    };
    server = serve({ hostname: '127.0.0.1', port: 0, fetch: fetch as Parameters<typeof serve>[0]['fetch'] }) as Server;
  }
  const port = await listening(server);
  return { face, router, origin: `http://127.0.0.1:${port}`, errors, close: () => closing(server) };
}

/**
 * Reads what is left of `req`'s body once its answer is sent, for the runtime of the fetch faces.
 * On the fetch faces the connection is the runtime's (docs/contract.md#body-limits), and
 * @hono/node-server means to read the rest of a body left unread after the answer (at most 64 MiB,
 * for at most 500 ms) and keep the connection, which it answers keep-alive. But once the body's
 * stream is open (a handler reading `req.body` or `req.signal` opens it), the request is also read
 * by `Readable.toWeb`, which pauses it again whenever its high-water mark (16 KiB on Node 20) waits
 * unread: the rest of a larger body refused unread (a 413) is then never read to its end, and
 * 500 ms later the server destroys the connection, with the request a client has sent on it since
 * (undici's `other side closed`). Reading the stream here lets the runtime's own drain, and its
 * limits, run as meant (test/hostile/unread-body.test.ts).
 */
function drainWhenAnswered(req: Request, incoming: IncomingMessage, outgoing: ServerResponse): void {
  outgoing.once('finish', () => {
    if (incoming.readableEnded) return;
    let body: ReadableStream | null;
    try {
      body = req.body;
    } catch {
      // @hono/node-server's lazy Request throws on first use for a target with credentials
      // (`http://a:b@x/…`), which it answers 500 itself: nothing to drain.
      return;
    }
    if (body !== null && !body.locked) body.pipeTo(new WritableStream()).catch(() => undefined);
  });
}

/** Serves `router` on each of `faces`. */
export async function serveFaces<const $Faces extends readonly Face[]>(
  router: AnyTRPCRouter,
  faces: $Faces,
  options?: ServeOptions,
): Promise<Record<$Faces[number], RunningFace>> {
  const running = await Promise.all(faces.map((face) => serveFace(router, face, options)));
  return Object.fromEntries(running.map((server) => [server.face, server])) as never;
}

/** What a call answered, the same way whichever face answered it. */
export interface CallResult {
  status: number;
  challenge: string | null;
  data?: unknown;
  error?: { message: string; code: string };
  /** The body as sent. */
  text: string;
}

/** The URL and method that reach `procedure` on a face. */
export function routeOf(running: RunningFace, procedure: string): { url: string; method: string } {
  const def = (running.router._def.procedures as Record<string, { _def: { type: string; meta?: OpenApiMeta } }>)[procedure]!._def;
  if (isRest(running.face)) return { url: `${running.origin}/api${def.meta!.openapi!.path}`, method: def.meta!.openapi!.method };
  return { url: `${running.origin}/trpc/${procedure}`, method: def.type === 'query' ? 'GET' : 'POST' };
}

const parse = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Calls `procedure` through `running`'s face with the given headers and body. */
export async function call(running: RunningFace, procedure: string, init: RequestInit = {}): Promise<CallResult> {
  const { url, method } = routeOf(running, procedure);
  // A tRPC mutation without input is still a JSON POST.
  const bodiless = !isRest(running.face) && method === 'POST' && init.body === undefined;
  const headers = new Headers(init.headers);
  if (bodiless && !headers.has('content-type')) headers.set('content-type', 'application/json');
  const response = await fetch(url, { method, ...init, headers });
  const text = await response.text();
  const body = parse(text);
  const result: CallResult = { status: response.status, challenge: response.headers.get('www-authenticate'), text };
  if (isRest(running.face)) {
    if (response.status >= 400) result.error = { message: body?.message, code: body?.code };
    else result.data = body;
  } else if (body?.error) result.error = { message: body.error.message, code: body.error.data?.code };
  else result.data = body?.result?.data;
  return result;
}
