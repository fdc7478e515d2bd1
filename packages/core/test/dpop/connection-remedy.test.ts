/**
 * docs/contract.md#dpop ("A refused connection proof"): a WebSocket connection has its opening
 * request's proof only, and its credential is its connection params'. A call refused for its
 * proof (an invalid one, a nonce the server asks for, a key the token is not bound to, a bound
 * token sent with no proof at all) can be answered only with a new connection, and its
 * description says so, in the message and in the challenge. The same refusal of an HTTP request
 * says nothing of connections, and a refusal a new connection does not cure (a token that is not
 * DPoP-bound sent with DPoP) says nothing of them either. Real `wsLink` and `fetch` clients on
 * loopback, every refusal through a query and a subscription alike.
 */
import { createTRPCClient, createWSClient, wsLink } from '@trpc/client';
import { initTRPC } from '@trpc/server';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../../src/index.js';
import { dpopNonces, dpopProofVerifier } from '../../src/dpop/index.js';
import { oauth2ErrorData } from '../../src/token-endpoint/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';
import { boundAndOtherKey, signProof, type ProofKey } from '../support/dpop-proofs.js';
import { serveRouter, serveWebSockets, type RunningServer } from '../support/serve.js';

const ORIGIN = 'https://api.example.test';
const ON_A_NEW_CONNECTION = "; a WebSocket connection has its opening request's proof only: open a new connection with a new proof";
const nonces = dpopNonces({ secret: 'the-resource-server-nonce-secret-0123456789', step: 3600 });

let key: ProofKey;
let other: ProofKey;
let jkt: string;
beforeAll(async () => {
  ({ key, other, jkt } = await boundAndOtherKey());
});

const verify = async (token: string): Promise<Principal> => {
  if (token === 'bound') return { scopes: ['me'], cnf: { jkt } };
  if (token === 'unbound') return { scopes: ['me'] };
  throw invalidTokenError('The access token is invalid');
};

const t = initTRPC.context<{ req?: unknown; info?: unknown }>().create({
  errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }),
});
const readerOf = (mode: 'required' | 'allowed', withNonces: boolean) =>
  oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode, proofs: dpopProofVerifier({ algorithms: ['ES256'], ...(withNonces ? { nonces } : {}) }) } });
const READERS = { allowed: readerOf('allowed', false), nonce: readerOf('required', true) };
type ReaderName = keyof typeof READERS;
const query = (reader: ReaderName) => t.procedure.use(READERS[reader]).query(() => 'ok');
const feed = (reader: ReaderName) =>
  t.procedure.use(READERS[reader]).subscription(async function* () {
    yield 'ok';
  });
const router = t.router({ allowed: query('allowed'), nonce: query('nonce'), allowedFeed: feed('allowed'), nonceFeed: feed('nonce') });

/** How a case presents itself: the reader, the `Authorization` value, and who signs the proof, if any, and for which URL. */
interface Case {
  readonly name: string;
  readonly reader: ReaderName;
  readonly authorization: string;
  readonly proof?: { readonly by: 'key' | 'other'; readonly wrongUrl?: true };
  readonly error: string;
  readonly description: string;
  /** Whether only a new connection cures it over WebSockets. */
  readonly newConnection: boolean;
}

const CASES: readonly Case[] = [
  { name: 'a proof for another URL', reader: 'allowed', authorization: 'DPoP bound', proof: { by: 'key', wrongUrl: true }, error: 'invalid_dpop_proof', description: 'The DPoP proof htu does not match the request URL', newConnection: true },
  { name: 'a proof without the nonce asked for', reader: 'nonce', authorization: 'DPoP bound', proof: { by: 'key' }, error: 'use_dpop_nonce', description: 'Resource server requires nonce in DPoP proof', newConnection: true },
  { name: 'a proof by another key than the token is bound to', reader: 'allowed', authorization: 'DPoP bound', proof: { by: 'other' }, error: 'invalid_dpop_proof', description: 'The DPoP proof key is not the key the access token is bound to', newConnection: true },
  { name: 'a bound token sent as Bearer, without a proof', reader: 'allowed', authorization: 'Bearer bound', error: 'invalid_token', description: 'The access token is DPoP-bound: send it with the DPoP scheme and a proof', newConnection: true },
  { name: 'a token that is not DPoP-bound sent with DPoP', reader: 'allowed', authorization: 'DPoP unbound', proof: { by: 'key' }, error: 'invalid_token', description: 'The access token is not DPoP-bound', newConnection: false },
];

/** What a refusal told the client: its message, status, challenge and nonce. */
interface Refusal {
  readonly message: string;
  readonly status: number | undefined;
  readonly challenge: string | null;
  readonly dpopNonce: string | null;
}

const proofOf = (row: Case, url: string) => {
  const token = row.authorization.split(' ')[1]!;
  return row.proof === undefined ? undefined : signProof(row.proof.by === 'key' ? key : other, { method: 'GET', url: row.proof.wrongUrl ? `${ORIGIN}/elsewhere` : url, accessToken: token });
};

describe('over WebSockets (tRPC ws adapter, wsLink)', () => {
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ url, close } = await serveWebSockets(router));
  });
  afterAll(() => close());

  /** The refusal a query and a subscription of `row` get on one connection opened as `row` says. */
  const refusals = async (row: Case): Promise<Refusal[]> => {
    const proof = await proofOf(row, `${ORIGIN}/trpc`);
    class ProvingWebSocket extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, proof === undefined ? {} : { headers: { dpop: proof } });
      }
    }
    const wsClient = createWSClient({ url, WebSocket: ProvingWebSocket as never, connectionParams: () => ({ authorization: row.authorization }) });
    const client = createTRPCClient<typeof router>({ links: [wsLink({ client: wsClient })] });
    try {
      const asQuery = await client[row.reader].query().then(() => undefined, refusalOf);
      const asSubscription = await new Promise<Refusal | undefined>((resolve) => {
        const subscription = client[`${row.reader}Feed`].subscribe(undefined, {
          onData: () => {
            subscription.unsubscribe();
            resolve(undefined);
          },
          onError: (error) => resolve(refusalOf(error)),
        });
      });
      return [asQuery, asSubscription].map((refusal) => refusal ?? { message: 'let through', status: undefined, challenge: null, dpopNonce: null });
    } finally {
      wsClient.close();
    }
  };

  it.each(CASES)('$name: the description says whether only a new connection cures it', async (row) => {
    const description = row.newConnection ? `${row.description}${ON_A_NEW_CONNECTION}` : row.description;
    for (const refusal of await refusals(row)) {
      expect(refusal.message).toBe(description);
      expect(refusal.status).toBe(401);
      expect(refusal.challenge).toContain(`error="${row.error}", error_description="${description}"`);
      expect(refusal.dpopNonce).toBe(row.error === 'use_dpop_nonce' ? await nonces.current() : null);
    }
  });
});

describe('over HTTP (tRPC standalone adapter): the same refusals say nothing of connections', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, 'standalone');
  });
  afterAll(() => server.close());

  it.each(CASES)('$name', async (row) => {
    const proof = await proofOf(row, `${ORIGIN}/trpc/${row.reader}`);
    const response = await fetch(`${server.url}/${row.reader}`, { headers: { authorization: row.authorization, ...(proof === undefined ? {} : { dpop: proof }) } });
    const body = (await response.json()) as { error: { message: string } };
    expect(response.status).toBe(401);
    expect(body.error.message).toBe(row.description);
    expect(response.headers.get('www-authenticate')).toContain(`error="${row.error}", error_description="${row.description}"`);
  });
});

function refusalOf(error: unknown): Refusal {
  const data = (error as { data?: { httpStatus?: number; oauth2?: { challenge?: string | null; dpopNonce?: string | null } | null } }).data;
  return { message: (error as Error).message, status: data?.httpStatus, challenge: data?.oauth2?.challenge ?? null, dpopNonce: data?.oauth2?.dpopNonce ?? null };
}
