/**
 * docs/contract.md#subscriptions and #challenges: a refused subscription carries its challenge
 * to the client on every face a subscription reaches (Server-Sent Events on this package's
 * standalone server, its Node handler and its fetch handler; WebSockets through
 * `@trpc/server/adapters/ws`), and so does a refused call of a streamed batch. No header reaches
 * such a client: `data.oauth2.challenge` (`oauth2ErrorData` in the errorFormatter) is the very
 * `WWW-Authenticate` value the REST face answers the same refusal with, and `data.oauth2.dpopNonce`
 * its `DPoP-Nonce`. Real `@trpc/client` links (`httpSubscriptionLink` with the `eventsource`
 * package, `wsLink`, `httpBatchStreamLink`) on loopback.
 */
import { createServer, type Server } from 'node:http';
import { serve } from '@hono/node-server';
import { oauth2PasswordBearer, type Principal } from '@trpc-oauth2/core';
import { accessTokenHash, dpopNonces, dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { oauth2ErrorData } from '@trpc-oauth2/core/token-endpoint';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { createTRPCClient, createWSClient, httpBatchStreamLink, httpSubscriptionLink, wsLink, type TRPCLink } from '@trpc/client';
import { initTRPC, type AnyTRPCRouter } from '@trpc/server';
import { getWSConnectionHandler } from '@trpc/server/adapters/ws';
import { EventSource } from 'eventsource';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { createOAuth2OpenApiFetchHandler, oauth2FetchRequestHandler } from '../../src/adapters/fetch.js';
import { createOAuth2HTTPHandler, createOAuth2HTTPServer, createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';
import { DPOP_ORIGIN } from '../support/dpop-faces.js';

const M = 'https://api.example.test/.well-known/oauth-protected-resource/api';
const NONCE_SECRET = 'the-resource-server-nonce-secret-0123456789';
// A step long enough that the REST face and the subscription are asked for one nonce.
const nonces = dpopNonces({ secret: NONCE_SECRET, step: 3600 });

let privateKey: CryptoKey;
let publicJwk: JWK;
let jkt: string;

const verify = async (token: string): Promise<Principal> => {
  if (token === 'good') return { scopes: ['feed'] };
  if (token === 'narrow') return { scopes: [] };
  if (token === 'bound') return { scopes: ['feed'], cnf: { jkt } };
  if (token === 'bound-elsewhere') return { scopes: ['feed'], cnf: { jkt: 'another-key-thumbprint' } };
  throw invalidTokenError('The access token is invalid');
};
const bearer = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { feed: 'Read the feed' }, resourceMetadata: M, verify });
const dpopReader = (withNonces: boolean) =>
  oauth2PasswordBearer({
    tokenUrl: '/token',
    scopes: { feed: 'Read the feed' },
    resourceMetadata: M,
    origin: DPOP_ORIGIN,
    verify,
    dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256'], ...(withNonces ? { nonces } : {}) }) },
  });

const t = initTRPC
  .context<{ req?: unknown; info?: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

/** The chains a refusal comes from: each guards a REST query and a subscription alike. */
const CHAINS = { bearer: bearer.withScopes('feed'), dpop: dpopReader(false).withScopes('feed'), nonce: dpopReader(true).withScopes('feed') };
type Chain = keyof typeof CHAINS;

const query = (chain: Chain) =>
  t.procedure.meta({ openapi: { method: 'GET', path: `/${chain}` } }).use(CHAINS[chain]).input(z.void()).output(z.string()).query(() => 'seen');
const feed = (chain: Chain) =>
  t.procedure.use(CHAINS[chain]).subscription(async function* () {
    yield 'event';
  });
const router = t.router({
  bearer: query('bearer'),
  dpop: query('dpop'),
  nonce: query('nonce'),
  bearerFeed: feed('bearer'),
  dpopFeed: feed('dpop'),
  nonceFeed: feed('nonce'),
});

/** The faces a subscription reaches. */
type StreamFace = 'sse-standalone' | 'sse-node-http' | 'sse-fetch' | 'ws';
const STREAM_FACES: readonly StreamFace[] = ['sse-standalone', 'sse-node-http', 'sse-fetch', 'ws'];

const createContext = ({ req, info }: { req: unknown; info?: unknown }) => ({ req, info });

const servers: Server[] = [];
let rest: string;
let restFetch: string;
const trpcUrl = {} as Record<Exclude<StreamFace, 'ws'>, string>;
let wsUrl: string;

async function start(server: Server): Promise<string> {
  servers.push(server);
  if (!server.listening) server.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${await listening(server)}`;
}

let wss: WebSocketServer;
beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  publicJwk = await exportJWK(pair.publicKey);
  jkt = await calculateJwkThumbprint(publicJwk, 'sha256');

  const restHandler = createOAuth2OpenApiHttpHandler({ router, createContext, basePath: '/api' });
  rest = await start(createServer((req, res) => void restHandler(req, res)));
  restFetch = await start(serve({ hostname: '127.0.0.1', port: 0, fetch: (req: Request) => createOAuth2OpenApiFetchHandler({ router, createContext, endpoint: '/api', req }) }) as Server);
  // The standalone server, with tRPC's WebSocket server on its port (the socket is opened at `/trpc`).
  const standalone = createOAuth2HTTPServer({ router, createContext, basePath: '/trpc/' });
  wss = new WebSocketServer({ server: standalone });
  wss.on('connection', (socket, req) => getWSConnectionHandler({ wss, router, createContext })(socket, req));
  trpcUrl['sse-standalone'] = `${await start(standalone)}/trpc`;
  wsUrl = trpcUrl['sse-standalone'].replace('http:', 'ws:');
  const nodeHandler = createOAuth2HTTPHandler({ router, createContext, basePath: '/trpc/' });
  trpcUrl['sse-node-http'] = `${await start(createServer(nodeHandler))}/trpc`;
  trpcUrl['sse-fetch'] = `${await start(serve({ hostname: '127.0.0.1', port: 0, fetch: (req: Request) => oauth2FetchRequestHandler({ router, createContext, endpoint: '/trpc', req }) }) as Server)}/trpc`;
});
afterAll(async () => {
  for (const client of wss?.clients ?? []) client.terminate();
  await new Promise<void>((resolve) => (wss === undefined ? resolve() : wss.close(() => resolve())));
  await Promise.all(servers.map((server) => closing(server)));
});

/** A DPoP proof for `method` and `url` (under the public origin) with `token`, without a nonce. */
const proofFor = async (method: string, url: string, token: string) =>
  new SignJWT({ htm: method, htu: url, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), ath: await accessTokenHash(token) })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk })
    .sign(privateKey);

/** How a case presents itself: the `Authorization` value, and whether a proof (without a nonce) goes with it. */
interface Credential {
  readonly authorization?: string;
  readonly proof?: boolean;
}

interface Answer {
  status: number | undefined;
  challenge: string | null;
  dpopNonce: string | null;
}

/** What the REST face answers `chain`'s query with this credential: its status and headers. */
async function restAnswer(origin: string, chain: Chain, credential: Credential): Promise<Answer> {
  const headers = new Headers();
  if (credential.authorization !== undefined) headers.set('authorization', credential.authorization);
  if (credential.proof) headers.set('dpop', await proofFor('GET', `${DPOP_ORIGIN}/api/${chain}`, credential.authorization!.split(' ')[1]!));
  const response = await fetch(`${origin}/api/${chain}`, { headers });
  await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), dpopNonce: response.headers.get('dpop-nonce') };
}

/** What a tRPC client error tells of the refusal: `data.httpStatus` and `data.oauth2`'s challenge and nonce. */
function clientAnswer(error: unknown): Answer {
  const data = (error as { data?: { httpStatus?: number; oauth2?: { challenge?: string | null; dpopNonce?: string | null } | null } }).data;
  return { status: data?.httpStatus, challenge: data?.oauth2?.challenge ?? null, dpopNonce: data?.oauth2?.dpopNonce ?? null };
}

/** Subscribes to `chain`'s feed on `face` with a real client and answers the error it ended with. */
async function subscriptionAnswer(face: StreamFace, chain: Chain, credential: Credential): Promise<Answer> {
  const token = credential.authorization?.split(' ')[1] ?? '';
  let link: TRPCLink<AnyTRPCRouter>;
  let close = async () => {};
  if (face === 'ws') {
    // The proof is a header of the opening request, the token in the connection params.
    const proof = credential.proof ? await proofFor('GET', `${DPOP_ORIGIN}/trpc`, token) : undefined;
    class ProvingWebSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, proof === undefined ? {} : { headers: { dpop: proof } });
      }
    }
    const wsClient = createWSClient({
      url: wsUrl,
      WebSocket: ProvingWebSocket as never,
      connectionParams: () => (credential.authorization === undefined ? {} : { authorization: credential.authorization }),
      retryDelayMs: () => 20,
    });
    link = wsLink({ client: wsClient } as never);
    close = () => wsClient.close();
  } else {
    const url = trpcUrl[face];
    link = httpSubscriptionLink({
      url,
      EventSource,
      eventSourceOptions: () => ({
        fetch: async (input: string | URL | Request, init?: RequestInit) => {
          const headers = new Headers(init?.headers);
          if (credential.authorization !== undefined) headers.set('authorization', credential.authorization);
          if (credential.proof) headers.set('dpop', await proofFor('GET', `${DPOP_ORIGIN}/trpc/${chain}Feed`, token));
          return fetch(input, { ...init, headers });
        },
      }),
    });
  }
  const client = createTRPCClient<typeof router>({ links: [link] });
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const subscription = client[`${chain}Feed`].subscribe(undefined, {
        onData: () => reject(new Error('a refused subscription delivered an event')),
        onError: (error) => {
          subscription.unsubscribe();
          resolve(clientAnswer(error));
        },
        onComplete: () => reject(new Error('a refused subscription completed')),
      });
    });
  } finally {
    await close();
  }
}

/**
 * What a refusal's description ends with over WebSockets when only a new connection cures it
 * (docs/contract.md#dpop): the connection has its opening request's proof only.
 */
const ON_A_NEW_CONNECTION = "; a WebSocket connection has its opening request's proof only: open a new connection with a new proof";

/** The challenge a refusal carries on `face`: the REST face's, its description saying so over WebSockets when only a new connection cures it. */
const onFace = (face: StreamFace, challenge: string | null, newConnection: boolean | undefined) =>
  face === 'ws' && newConnection === true && challenge !== null ? challenge.replace(/error_description="([^"]*)"/, `error_description="$1${ON_A_NEW_CONNECTION}"`) : challenge;

const CASES: readonly { name: string; chain: Chain; credential: Credential; status: number; challenge: string; nonce?: true; newConnection?: true }[] = [
  { name: 'no token', chain: 'bearer', credential: {}, status: 401, challenge: `Bearer resource_metadata="${M}"` },
  {
    name: 'a token the verifier refuses',
    chain: 'bearer',
    credential: { authorization: 'Bearer forged' },
    status: 401,
    challenge: `Bearer error="invalid_token", error_description="The access token is invalid", resource_metadata="${M}"`,
  },
  {
    name: 'a token without the scope',
    chain: 'bearer',
    credential: { authorization: 'Bearer narrow' },
    status: 403,
    challenge: `Bearer error="insufficient_scope", scope="feed", resource_metadata="${M}"`,
  },
  { name: 'no token where DPoP is required', chain: 'dpop', credential: {}, status: 401, challenge: `DPoP resource_metadata="${M}", algs="ES256"` },
  {
    name: 'a proof without the nonce the resource asks for',
    chain: 'nonce',
    credential: { authorization: 'DPoP bound', proof: true },
    status: 401,
    challenge: `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", resource_metadata="${M}", algs="ES256"`,
    nonce: true,
    newConnection: true,
  },
  {
    name: 'a proof by another key than the token is bound to',
    chain: 'dpop',
    credential: { authorization: 'DPoP bound-elsewhere', proof: true },
    status: 401,
    challenge: `DPoP error="invalid_dpop_proof", error_description="The DPoP proof key is not the key the access token is bound to", resource_metadata="${M}", algs="ES256"`,
    newConnection: true,
  },
];

describe('a refused subscription carries the challenge the REST face sends for the same refusal', () => {
  it.each(CASES)('the REST faces answer $name with its challenge', async ({ chain, credential, status, challenge, nonce }) => {
    for (const origin of [rest, restFetch]) {
      const answer = await restAnswer(origin, chain, credential);
      expect(answer).toEqual({ status, challenge, dpopNonce: nonce ? await nonces.current() : null });
    }
  });

  it.each(STREAM_FACES.flatMap((face) => CASES.map((row) => ({ face, ...row }))))('$face: $name', async ({ face, chain, credential, status, nonce, newConnection }) => {
    const expected = await restAnswer(rest, chain, credential);
    expect(expected.status).toBe(status);
    const answer = await subscriptionAnswer(face, chain, credential);
    expect(answer).toEqual({ status, challenge: onFace(face, expected.challenge, newConnection), dpopNonce: nonce ? await nonces.current() : null });
  });
});

describe('a refused call of a streamed batch carries its challenge', () => {
  it.each(CASES.filter((row) => !row.credential.proof))('$name', async ({ chain, credential, status }) => {
    const expected = await restAnswer(rest, chain, credential);
    for (const url of Object.values(trpcUrl)) {
      const client = createTRPCClient<typeof router>({
        links: [httpBatchStreamLink({ url, headers: () => (credential.authorization === undefined ? {} : { authorization: credential.authorization }) })],
      });
      const error = await client[chain].query().then(
        () => undefined,
        (refusal: unknown) => refusal,
      );
      expect(clientAnswer(error)).toEqual({ status, challenge: expected.challenge, dpopNonce: null });
    }
  });
});
