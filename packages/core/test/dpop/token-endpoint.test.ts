/**
 * docs/contract.md#dpop: a token endpoint given `dpop` checks the proof of each token request
 * (RFC 9449 §5), hands the key's thumbprint to the grant handler, and answers a refused proof with
 * `invalid_dpop_proof`, a missing nonce with `use_dpop_nonce` and a `DPoP-Nonce` header, over
 * tRPC's fetch and standalone adapters on loopback.
 */
import { initTRPC } from '@trpc/server';
import { calculateJwkThumbprint } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dpopNonces, dpopProofVerifier, memoryReplayStore, type DPoPProof, type DPoPReplayStore } from '../../src/dpop/index.js';
import { DEFAULT_DPOP_ALGORITHMS } from '../../src/dpop/algorithms.js';
import { tokenError } from '../../src/token-endpoint/index.js';
import { authorizationServerMetadata, tokenEndpoint } from '../../src/token-endpoint/index.js';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';
import { ADAPTERS, serveRouter, type RunningServer } from '../support/serve.js';
import { getTokenEndpoint } from '../../src/protocol.js';

const ORIGIN = 'https://as.example.com';
const t = initTRPC.context<{ req?: unknown }>().create();

interface RouterOptions {
  required?: boolean;
  nonces?: boolean;
  replayEntries?: number;
  replay?: DPoPReplayStore;
  /** Milliseconds the grant takes, as one that asks a database would. */
  grantDelay?: number;
  /** An `around` that fails once the grant ran (a throttle whose own store is down). */
  failsAfterGrant?: boolean;
  /** The origin as configured (default `ORIGIN`), and whether the options come from ctx. */
  origin?: string;
  fromCtx?: boolean;
  /** Options from ctx that make a new checker, with no store given, for every request. */
  checkerPerRequest?: boolean;
}

function router(options: RouterOptions) {
  const nonces = options.nonces ? dpopNonces({ secret: 'the-token-endpoint-nonce-secret-0123456789' }) : undefined;
  const replay =
    options.replay !== undefined ? { replay: options.replay } : options.replayEntries === undefined ? {} : { replay: memoryReplayStore({ maxEntries: options.replayEntries }) };
  const proofs = dpopProofVerifier({ ...replay, ...(nonces ? { nonces } : {}) });
  const seen: (DPoPProof | undefined)[] = [];
  const token = tokenEndpoint(t.procedure, {
    authenticateClient: () => ({ id: null }),
    dpop: options.checkerPerRequest
      ? () => ({ proofs: dpopProofVerifier(), origin: options.origin ?? ORIGIN })
      : options.fromCtx
      ? () => ({ proofs, origin: options.origin ?? ORIGIN })
      : { proofs, origin: options.origin ?? ORIGIN, ...(options.required ? { required: true } : {}) },
    ...(options.failsAfterGrant
      ? {
          around: async (_call: unknown, next: () => Promise<unknown>) => {
            await next();
            throw new Error('the throttle store is down');
          },
        }
      : {}),
  })
    .grant('client_credentials', async ({ dpop, form }) => {
      seen.push(dpop);
      if (options.grantDelay !== undefined) await new Promise((resolve) => setTimeout(resolve, options.grantDelay));
      if (form.scope === 'refused') throw tokenError('invalid_scope', 'Unknown scope');
      return { access_token: 'issued', token_type: dpop ? 'DPoP' : 'Bearer' };
    })
    .build();
  return { router: t.router({ token }), seen, nonces };
}

let key: ProofKey;
beforeAll(async () => {
  key = await proofKey();
});

describe.each(ADAPTERS)('the token endpoint over the %s adapter', (adapter) => {
  const running: RunningServer[] = [];
  afterAll(() => Promise.all(running.map((server) => server.close())));

  const serve = async (options: RouterOptions) => {
    const built = router(options);
    const server = await serveRouter(built.router, adapter);
    running.push(server);
    const post = (proof?: string, scope?: string) =>
      fetch(`${server.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(proof === undefined ? {} : { dpop: proof }) },
        body: JSON.stringify({ grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) }),
      });
    return { ...built, post, htu: `${ORIGIN}/trpc/token` };
  };
  const errorOf = async (response: Response) => ((await response.json()) as { error: { data?: { code?: string }; message: string } }).error;

  it('binds to the proof key: the handler gets its thumbprint', async () => {
    const { post, seen, htu } = await serve({});
    const response = await post(await signProof(key, { method: 'POST', url: htu }));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { data: { token_type: string } } }).result.data.token_type).toBe('DPoP');
    expect(seen[0]?.jkt).toBe(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
  });

  it('issues unbound tokens to a request without a proof, unless proofs are required', async () => {
    const optional = await serve({});
    expect((await optional.post()).status).toBe(200);
    expect(optional.seen).toEqual([undefined]);
    const required = await serve({ required: true });
    const refused = await required.post();
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).message).toBe('A DPoP proof is required');
    expect(required.seen).toEqual([]);
  });

  it.each([
    ['another htu', { url: `${ORIGIN}/trpc/other` }, 'The DPoP proof htu does not match the request URL'],
    ['the Host the server saw instead of the public origin', { url: 'http://127.0.0.1/trpc/token' }, 'The DPoP proof htu does not match the request URL'],
    ['another htm', { method: 'GET' }, 'The DPoP proof htm does not match the request method'],
  ])('refuses a proof with %s (invalid_dpop_proof, 400)', async (_, change, message) => {
    const { post, seen, htu } = await serve({});
    const response = await post(await signProof(key, { method: 'POST', url: htu, ...change }));
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ message, data: { code: 'BAD_REQUEST' } });
    expect(seen).toEqual([]);
  });

  // A reader reads any spelling of its origin as the origin it names: so does the endpoint.
  it.each([
    ['the host in upper case', 'https://AS.Example.COM'],
    ['the default port', 'https://as.example.com:443'],
    ['a trailing slash', 'https://as.example.com/'],
  ])('takes an origin spelled with %s as the origin it names, configured or from ctx', async (_, origin) => {
    for (const fromCtx of [false, true]) {
      const { post, seen, htu } = await serve({ origin, fromCtx });
      const response = await post(await signProof(key, { method: 'POST', url: htu }));
      expect(response.status).toBe(200);
      expect(seen[0]?.jkt).toBe(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
    }
  });

  it('refuses a replayed proof', async () => {
    const { post, htu } = await serve({});
    const proof = await signProof(key, { method: 'POST', url: htu });
    expect((await post(proof)).status).toBe(200);
    const replayed = await post(proof);
    expect(replayed.status).toBe(400);
    expect((await errorOf(replayed)).message).toBe('The DPoP proof was already used');
  });

  // Each checker made without a store records in the process's one: a checker made per request
  // still sees the proof the one before it recorded.
  it('refuses a replayed proof when its options make a new checker for every request', async () => {
    const { post, seen, htu } = await serve({ checkerPerRequest: true });
    const proof = await signProof(key, { method: 'POST', url: htu });
    expect((await post(proof)).status).toBe(200);
    const replayed = await post(proof);
    expect(replayed.status).toBe(400);
    expect((await errorOf(replayed)).message).toBe('The DPoP proof was already used');
    expect(seen).toHaveLength(1);
  });

  it('refuses a replayed proof before its grant runs: a single-use grant is not spent by it', async () => {
    const { post, seen, htu } = await serve({});
    const proof = await signProof(key, { method: 'POST', url: htu });
    expect((await post(proof)).status).toBe(200);
    expect((await errorOf(await post(proof))).message).toBe('The DPoP proof was already used');
    expect(seen).toHaveLength(1);
  });

  it('refuses a fresh proof the replay store has no room for before its grant runs', async () => {
    const { post, seen, htu } = await serve({ replayEntries: 1 });
    expect((await post(await signProof(key, { method: 'POST', url: htu }))).status).toBe(200);
    expect((await errorOf(await post(await signProof(key, { method: 'POST', url: htu })))).message).toBe('The DPoP proof was already used');
    expect(seen).toHaveLength(1);
  });

  it('with a replay store that cannot look without recording, refuses the replay once its grant ran', async () => {
    const memory = memoryReplayStore();
    const { post, seen, htu } = await serve({ replay: { use: (key, expiresAt, holder) => memory.use(key, expiresAt, holder) } });
    const proof = await signProof(key, { method: 'POST', url: htu });
    expect((await post(proof)).status).toBe(200);
    expect((await errorOf(await post(proof))).message).toBe('The DPoP proof was already used');
    expect(seen).toHaveLength(2);
  });

  it('of 20 concurrent requests with one proof, serves exactly one and runs one grant', async () => {
    const { post, seen, htu } = await serve({ grantDelay: 20 });
    const proof = await signProof(key, { method: 'POST', url: htu });
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => post(proof)))).map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(19);
    // The store can forget (`release`): the proof is recorded before the grant, so the others are
    // refused before theirs run, and a single-use grant is spent by the one answered request.
    expect(seen).toHaveLength(1);
  });

  it('of 20 concurrent requests with one proof over two servers sharing a store, runs one grant', async () => {
    const replay = memoryReplayStore();
    const [one, two] = [await serve({ replay, grantDelay: 20 }), await serve({ replay, grantDelay: 20 })];
    const proof = await signProof(key, { method: 'POST', url: one.htu });
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).post(proof)));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    for (const response of responses.filter((response) => response.status !== 200)) {
      expect(response.status).toBe(400);
      expect((await errorOf(response)).message).toBe('The DPoP proof was already used');
    }
    expect([...one.seen, ...two.seen]).toHaveLength(1);
  });

  it('keeps the proof of a request whose grant ran though the request failed after it: its replay runs no grant', async () => {
    const { post, seen, htu } = await serve({ failsAfterGrant: true });
    const proof = await signProof(key, { method: 'POST', url: htu });
    expect((await post(proof)).status).toBe(500);
    const replayed = await post(proof);
    expect(replayed.status).toBe(400);
    expect((await errorOf(replayed)).message).toBe('The DPoP proof was already used');
    expect(seen).toHaveLength(1);
  });

  it('forgets the proof of a request whose grant failed, and keeps it when the store cannot forget it then', async () => {
    const memory = memoryReplayStore();
    const released: string[] = [];
    let failRelease = false;
    const replay: DPoPReplayStore = {
      use: (key, expiresAt, holder) => memory.use(key, expiresAt, holder),
      release: (key, expiresAt, holder) => {
        released.push(key);
        if (failRelease) throw new Error('the store is down');
        return memory.release!(key, expiresAt, holder);
      },
    };
    const { post, seen, htu } = await serve({ replay });
    const proof = await signProof(key, { method: 'POST', url: htu });
    expect((await errorOf(await post(proof, 'refused'))).message).toBe('Unknown scope');
    expect(released).toHaveLength(1);
    // Forgotten: the same proof is not refused as a replay (its request failed).
    expect((await post(proof)).status).toBe(200);
    expect((await errorOf(await post(proof))).message).toBe('The DPoP proof was already used');
    expect(released).toHaveLength(1);
    // A store that fails to forget: the answer is still the grant's own error, and the proof stays recorded.
    failRelease = true;
    const kept = await signProof(key, { method: 'POST', url: htu });
    const refused = await post(kept, 'refused');
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).message).toBe('Unknown scope');
    expect((await errorOf(await post(kept))).message).toBe('The DPoP proof was already used');
    expect(seen).toHaveLength(3);
  });

  // The replay store is bounded and refuses new proofs when full: only a request whose grant
  // succeeded records its proof, so failing requests, by anyone, cannot fill it.
  it('records a proof only once its grant succeeded', async () => {
    const { post, htu } = await serve({ replayEntries: 1 });
    for (let i = 0; i < 3; i++) {
      const refused = await post(await signProof(key, { method: 'POST', url: htu }), 'refused');
      expect((await errorOf(refused)).message).toBe('Unknown scope');
    }
    const proof = await signProof(key, { method: 'POST', url: htu });
    expect((await post(proof)).status).toBe(200);
    expect((await errorOf(await post(proof))).message).toBe('The DPoP proof was already used');
    // The store holds its one entry: a new proof is refused rather than a live one dropped.
    expect((await errorOf(await post(await signProof(key, { method: 'POST', url: htu })))).message).toBe('The DPoP proof was already used');
  });

  it('asks for a nonce with use_dpop_nonce and DPoP-Nonce, and accepts the proof that carries it', async () => {
    const { post, htu, nonces } = await serve({ nonces: true });
    const asked = await post(await signProof(key, { method: 'POST', url: htu }));
    expect(asked.status).toBe(400);
    const nonce = asked.headers.get('dpop-nonce');
    expect(nonce).toBe(await nonces!.current());
    expect((await errorOf(asked)).message).toBe('Authorization server requires nonce in DPoP proof');
    expect((await post(await signProof(key, { method: 'POST', url: htu, nonce: nonce! }))).status).toBe(200);
  });
});

describe('the token endpoint through createCaller', () => {
  it('refuses a proof when there is no request to check htm and htu against', async () => {
    const { router: app } = router({});
    const key2 = await proofKey();
    const caller = app.createCaller({ req: undefined, headers: { dpop: await signProof(key2, { method: 'POST', url: `${ORIGIN}/token` }) } } as never);
    await expect(caller.token({ grant_type: 'client_credentials' })).rejects.toMatchObject({
      cause: { code: 'ERR_INVALID_DPOP_PROOF', error: 'invalid_dpop_proof', status: 400 },
    });
  });

  it('checks its origin where it is configured', () => {
    const proofs = dpopProofVerifier();
    for (const origin of ['not a url', 'https://as.example.com/token', 'ftp://as.example.com', 'https://user@as.example.com', 'https://as.example.com/?x', 'https://as.example.com#top']) {
      expect(() => tokenEndpoint(t.procedure, { authenticateClient: () => null, dpop: { proofs, origin } }).grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' })).build()).toThrow(TypeError);
    }
  });
});

// What the OpenAPI document reads of the endpoint (docs/contract.md#openapi): whether it checks
// proofs, requires them, and may ask for a nonce; options from ctx as what they may do.
describe('the DPoP the token endpoint declares', () => {
  const declared = (dpop?: Parameters<typeof tokenEndpoint<typeof t.procedure, { id: null }>>[1]['dpop']) =>
    getTokenEndpoint(
      tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), ...(dpop === undefined ? {} : { dpop }) })
        .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' }))
        .build(),
    )?.dpop;
  const nonces = dpopNonces({ secret: 'the-token-endpoint-nonce-secret-0123456789' });

  it.each([
    ['no dpop', undefined, null],
    ['a checker without nonces', { proofs: dpopProofVerifier(), origin: ORIGIN }, { required: false, nonces: false, algorithms: [...DEFAULT_DPOP_ALGORITHMS] }],
    [
      'a checker with nonces, proofs required',
      { proofs: dpopProofVerifier({ nonces, algorithms: ['ES256', 'EdDSA'] }), origin: ORIGIN, required: true },
      { required: true, nonces: true, algorithms: ['ES256', 'EdDSA'] },
    ],
    ['options from ctx', () => ({ proofs: dpopProofVerifier(), origin: ORIGIN }), { required: null, nonces: true, algorithms: null }],
  ] as const)('%s', (_name, dpop, expected) => {
    expect(declared(dpop)).toEqual(expected);
  });

  // RFC 9449 §5.1: the authorization server's metadata names the proof algorithms its token
  // endpoint accepts (docs/contract.md#authorization-server-metadata).
  it('is what the authorization server metadata advertises', () => {
    const metadataOf = (dpop?: Parameters<typeof tokenEndpoint<typeof t.procedure, { id: null }>>[1]['dpop']) =>
      authorizationServerMetadata({
        issuer: ORIGIN,
        token: {
          procedure: tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), ...(dpop === undefined ? {} : { dpop }) })
            .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' }))
            .build(),
          url: `${ORIGIN}/token`,
        },
      });
    expect(metadataOf({ proofs: dpopProofVerifier({ algorithms: ['ES256', 'EdDSA'] }), origin: ORIGIN }).dpop_signing_alg_values_supported).toEqual(['ES256', 'EdDSA']);
    expect(metadataOf()).not.toHaveProperty('dpop_signing_alg_values_supported');
    expect(metadataOf(() => ({ proofs: dpopProofVerifier(), origin: ORIGIN }))).not.toHaveProperty('dpop_signing_alg_values_supported');
  });
});
