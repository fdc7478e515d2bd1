/**
 * docs/contract.md#dpop: a bearer reader given `dpop` reads `Authorization: DPoP <token>`, checks
 * the proof on every request (a cached principal too) and the token's binding to the proof key,
 * refuses a bound token sent as `Bearer`, and answers each refusal with its challenge — one table
 * row per case, over tRPC's fetch and standalone adapters on loopback.
 */
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyOf, oauth2, oauth2AuthorizationCodeBearer, oauth2Bearer, oauth2PasswordBearer, requireAuthentication, type Principal, type TokenVerifier } from '../../src/index.js';
import { dpopNonces, dpopProofVerifier } from '../../src/dpop/index.js';
import { insufficientUserAuthenticationError, invalidTokenError } from '../../src/errors-entry.js';
import { getProcedureSecurity } from '../../src/protocol.js';
import { boundAndOtherKey, signProof, type ProofKey } from '../support/dpop-proofs.js';
import { ADAPTERS, serveRouter, type RunningServer } from '../support/serve.js';

const ORIGIN = 'https://api.example.test';
const ALGS = 'algs="ES256 EdDSA"';
const NONCE_SECRET = 'the-resource-server-nonce-secret-0123456789';

let key: ProofKey;
let other: ProofKey;
let jkt: string;
/** Tokens by name: `bound` to `key`, `plain` unbound; anything else is refused. */
let verify: TokenVerifier<Principal>;
beforeAll(async () => {
  ({ key, other, jkt } = await boundAndOtherKey());
  const principals = new Map<string, Principal>([
    ['bound', { scopes: ['me'], cnf: { jkt } }],
    ['bound-cached', { scopes: ['me'], cnf: { jkt } }],
    ['plain', { scopes: ['me'] }],
  ]);
  const cache = new Map<string, Principal>();
  verify = Object.assign(
    async (token: string) => {
      const principal = principals.get(token);
      if (principal === undefined) throw invalidTokenError('The access token is invalid');
      if (token === 'bound-cached') cache.set(token, principal);
      return principal;
    },
    { peek: (token: string) => cache.get(token) },
  );
});

function router(mode: 'required' | 'allowed', nonces: boolean) {
  const t = initTRPC.context<{ req?: unknown }>().create();
  const reader = oauth2PasswordBearer({
    tokenUrl: '/token',
    scopes: { me: 'Read me' },
    origin: ORIGIN,
    verify: (token, options) => verify(token, options),
    dpop: {
      mode,
      proofs: dpopProofVerifier({
        algorithms: ['ES256', 'EdDSA'],
        ...(nonces ? { nonces: dpopNonces({ secret: NONCE_SECRET }) } : {}),
      }),
    },
  });
  const me = t.procedure.use(reader).use(reader.requireScopes('me')).query(({ ctx }) => ({ token: ctx.token }));
  return t.router({ me });
}

interface Call {
  authorization?: string;
  proof?: string;
}

describe.each(ADAPTERS)('a DPoP reader over the %s adapter', (adapter) => {
  const servers = new Map<string, RunningServer>();
  beforeAll(async () => {
    for (const [name, mode, nonces] of [['allowed', 'allowed', false], ['required', 'required', false], ['nonces', 'allowed', true]] as const) {
      servers.set(name, await serveRouter(router(mode, nonces), adapter));
    }
  });
  afterAll(() => Promise.all([...servers.values()].map((server) => server.close())));

  const call = async (server: string, { authorization, proof }: Call) => {
    const response = await fetch(`${servers.get(server)!.url}/me`, {
      headers: { ...(authorization === undefined ? {} : { authorization }), ...(proof === undefined ? {} : { dpop: proof }) },
    });
    return { status: response.status, challenge: response.headers.get('www-authenticate'), nonce: response.headers.get('dpop-nonce') };
  };
  const htu = `${ORIGIN}/trpc/me`;
  const proofFor = (token: string, change: Partial<Parameters<typeof signProof>[1]> = {}, by: ProofKey = key) =>
    signProof(by, { method: 'GET', url: htu, accessToken: token, ...change });

  const refusedProof = (description: string) => `DPoP error="invalid_dpop_proof", error_description="${description}", ${ALGS}`;
  const cases: [string, string, () => Promise<Call>, number, string | null][] = [
    ['a bound token with its proof', 'allowed', async () => ({ authorization: 'DPoP bound', proof: await proofFor('bound') }), 200, null],
    ['the bound token replayed as Bearer', 'allowed', async () => ({ authorization: 'Bearer bound' }), 401,
      `DPoP error="invalid_token", error_description="The access token is DPoP-bound: send it with the DPoP scheme and a proof", ${ALGS}`],
    ['the bound token as Bearer with a proof', 'allowed', async () => ({ authorization: 'Bearer bound', proof: await proofFor('bound') }), 401,
      `DPoP error="invalid_token", error_description="The access token is DPoP-bound: send it with the DPoP scheme and a proof", ${ALGS}`],
    ['another key\'s proof', 'allowed', async () => ({ authorization: 'DPoP bound', proof: await proofFor('bound', {}, other) }), 401,
      refusedProof('The DPoP proof key is not the key the access token is bound to')],
    ['no proof', 'allowed', async () => ({ authorization: 'DPoP bound' }), 401, refusedProof('A DPoP proof is required')],
    ['a wrong htm', 'allowed', async () => ({ authorization: 'DPoP bound', proof: await proofFor('bound', { method: 'POST' }) }), 401,
      refusedProof('The DPoP proof htm does not match the request method')],
    ['a wrong htu (the loopback address the server saw)', 'allowed', async () => ({ authorization: 'DPoP bound', proof: await proofFor('bound', { url: 'http://127.0.0.1/trpc/me' }) }), 401,
      refusedProof('The DPoP proof htu does not match the request URL')],
    ['a wrong ath', 'allowed', async () => ({ authorization: 'DPoP bound', proof: await proofFor('other-token') }), 401,
      refusedProof('The DPoP proof ath does not match the access token')],
    ['a stale iat', 'allowed', async () => ({ authorization: 'DPoP bound', proof: await proofFor('bound', { iat: Math.floor(Date.now() / 1000) - 120 }) }), 401,
      refusedProof('The DPoP proof is too old')],
    ['a future iat', 'allowed', async () => ({ authorization: 'DPoP bound', proof: await proofFor('bound', { iat: Math.floor(Date.now() / 1000) + 120 }) }), 401,
      refusedProof('The DPoP proof is issued in the future')],
    ['an unbound token sent as DPoP', 'allowed', async () => ({ authorization: 'DPoP plain', proof: await proofFor('plain') }), 401,
      `DPoP error="invalid_token", error_description="The access token is not DPoP-bound", ${ALGS}`],
    ['a token the verifier refuses, sent as DPoP', 'allowed', async () => ({ authorization: 'DPoP forged', proof: await proofFor('forged') }), 401,
      `DPoP error="invalid_token", error_description="The access token is invalid", ${ALGS}`],
    ['an unbound bearer token where DPoP is allowed', 'allowed', async () => ({ authorization: 'Bearer plain' }), 200, null],
    ['no credentials where DPoP is allowed', 'allowed', async () => ({}), 401, `Bearer, DPoP ${ALGS}`],
    ['an unbound bearer token where DPoP is required', 'required', async () => ({ authorization: 'Bearer plain' }), 401, `DPoP ${ALGS}`],
    ['a bound token with its proof where DPoP is required', 'required', async () => ({ authorization: 'DPoP bound', proof: await proofFor('bound') }), 200, null],
    ['a proof without the required nonce', 'nonces', async () => ({ authorization: 'DPoP bound', proof: await proofFor('bound') }), 401,
      `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", ${ALGS}`],
  ];
  it.each(cases)('%s', async (_, server, build, status, challenge) => {
    const answer = await call(server, await build());
    expect({ status: answer.status, challenge: answer.challenge }).toEqual({ status, challenge });
  });

  it('refuses a replayed proof', async () => {
    const proof = await proofFor('bound');
    expect((await call('allowed', { authorization: 'DPoP bound', proof })).status).toBe(200);
    expect(await call('allowed', { authorization: 'DPoP bound', proof })).toMatchObject({ status: 401, challenge: refusedProof('The DPoP proof was already used') });
  });

  it('of 20 concurrent requests with one proof, serves exactly one', async () => {
    const proof = await proofFor('bound');
    const answers = await Promise.all(Array.from({ length: 20 }, () => call('allowed', { authorization: 'DPoP bound', proof })));
    expect(answers.filter(({ status }) => status === 200)).toHaveLength(1);
    expect(answers.filter(({ status, challenge }) => status === 401 && challenge === refusedProof('The DPoP proof was already used'))).toHaveLength(19);
  });

  it('checks the proof of every request, when the principal is cached too', async () => {
    expect((await call('allowed', { authorization: 'DPoP bound-cached', proof: await proofFor('bound-cached') })).status).toBe(200);
    expect(await call('allowed', { authorization: 'DPoP bound-cached' })).toMatchObject({ status: 401, challenge: refusedProof('A DPoP proof is required') });
    expect((await call('allowed', { authorization: 'Bearer bound-cached' })).status).toBe(401);
    expect((await call('allowed', { authorization: 'DPoP bound-cached', proof: await proofFor('bound-cached') })).status).toBe(200);
  });

  it('sends a nonce with use_dpop_nonce, and accepts the proof that carries it', async () => {
    const asked = await call('nonces', { authorization: 'DPoP bound', proof: await proofFor('bound') });
    expect(asked.nonce).toBe(await dpopNonces({ secret: NONCE_SECRET }).current());
    expect((await call('nonces', { authorization: 'DPoP bound', proof: await proofFor('bound', { nonce: asked.nonce! }) })).status).toBe(200);
  });
});

describe('a DPoP reader', () => {
  it('needs verify and origin, and declares what it accepts in RFC 9728 names', () => {
    // A compile error too (test/types/dpop.test-d.ts); the throw is for JavaScript, which the types do not reach.
    // @ts-expect-error dpop without verify
    expect(() => oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, dpop: { mode: 'allowed' } })).toThrow(TypeError);
    // @ts-expect-error dpop without origin
    expect(() => oauth2PasswordBearer({ tokenUrl: '/token', verify, dpop: { mode: 'allowed' } })).toThrow(TypeError);
    const t = initTRPC.create();
    const reader = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256'] }) } });
    const security = getProcedureSecurity(t.procedure.use(reader).query(() => 1));
    expect(JSON.stringify(security)).toContain('"dpop":{"dpop_signing_alg_values_supported":["ES256"],"dpop_bound_access_tokens_required":true}');
    // The OAuth 2.0 scheme stays as it is: the document adds an HTTP `DPoP` scheme from the declaration.
    expect(reader.securityScheme.description).toBeUndefined();
  });

  it('is any bearer reader, oauth2Bearer for any flow included; the base reader, which reads no bearer token, refuses dpop', () => {
    const t = initTRPC.create();
    const dpop = { mode: 'allowed', proofs: dpopProofVerifier({ algorithms: ['ES256'] }) } as const;
    const flows = { clientCredentials: { tokenUrl: '/token', scopes: { svc: 'Service' } } };
    const service = oauth2Bearer({ flows, origin: ORIGIN, verify, dpop });
    expect(JSON.stringify(getProcedureSecurity(t.procedure.use(service).query(() => 1)))).toContain('"dpop_bound_access_tokens_required":false');
    expect(() => oauth2({ flows, origin: ORIGIN, verify, ...({ dpop } as object) })).toThrow(
      'oauth2 reads the whole Authorization value and takes no dpop: use oauth2Bearer (any flow), oauth2PasswordBearer or oauth2AuthorizationCodeBearer',
    );
  });
});

describe('a reader without dpop', () => {
  it('refuses a DPoP-bound token as a bearer token: it cannot check the proof', async () => {
    const t = initTRPC.context<{ headers: Record<string, string> }>().create();
    const reader = oauth2PasswordBearer({ tokenUrl: '/token', verify });
    const caller = t.router({ me: t.procedure.use(reader).query(() => 'ran') }).createCaller;
    await expect(caller({ headers: { authorization: 'Bearer bound' } }).me()).rejects.toMatchObject({
      cause: { code: 'ERR_INVALID_TOKEN', headers: { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The access token is DPoP-bound, and DPoP is not accepted here"' } },
    });
    expect(await caller({ headers: { authorization: 'Bearer plain' } }).me()).toBe('ran');
  });
});

describe("a DPoP reader's subscription", () => {
  /** Opens a subscription through the reader alone (tRPC's middleware call), with a bound token and its proof. */
  const open = async (verifyWith: TokenVerifier<Principal>) => {
    const reader = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify: verifyWith, recheckInterval: 50, dpop: { mode: 'allowed' } });
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}/items`, accessToken: 'bound' });
    const ticks = async function* () {
      for (let n = 0; ; n++) {
        yield n;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const req = new Request(`${ORIGIN}/items`, { headers: { authorization: 'DPoP bound', dpop: proof } });
    const result = await reader({ ctx: { req }, type: 'subscription', path: 'items', next: async () => ({ ok: true, data: ticks() }) as never });
    const stream = (result as { data: AsyncIterable<number> }).data;
    return async () => {
      for await (const _ of stream);
    };
  };

  it('ends as a bearer subscription does: at expiresAt, with the reader\'s token-expired error, in the DPoP scheme', async () => {
    const expiring = async () => ({ scopes: ['me'], cnf: { jkt }, expiresAt: Math.floor(Date.now() / 1000) + 1 });
    await expect((await open(expiring))()).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'The access token expired',
      cause: { headers: { 'WWW-Authenticate': expect.stringMatching(/^DPoP error="invalid_token", error_description="The access token expired", algs="/) } },
    });
  });

  it('is rechecked every recheckInterval, and ends with the DPoP refusal once the verifier refuses the token', async () => {
    let revoked = false;
    const revocable = async (token: string, options?: { fresh?: boolean }) => {
      if (revoked && options?.fresh === true) throw invalidTokenError('The access token is not active');
      return { scopes: ['me'], cnf: { jkt } };
    };
    const consume = await open(revocable);
    setTimeout(() => (revoked = true), 100);
    await expect(consume()).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'The access token is not active',
      cause: { headers: { 'WWW-Authenticate': expect.stringMatching(/^DPoP error="invalid_token", error_description="The access token is not active", algs="/) } },
    });
  });
});

describe('anyOf of DPoP readers', () => {
  const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
  const password = (dpop?: { mode: 'required' | 'allowed'; proofs?: typeof proofs }) =>
    oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read me' }, origin: ORIGIN, verify: (token, options) => verify(token, options), ...(dpop ? { dpop } : {}) });
  const code = (dpop?: { mode: 'required' | 'allowed'; proofs?: typeof proofs }) =>
    oauth2AuthorizationCodeBearer({
      authorizationUrl: '/authorize',
      tokenUrl: '/token',
      scopes: { me: 'Read me' },
      origin: ORIGIN,
      verify: async (token) => {
        if (token === 'code-bound') return { scopes: ['me'], cnf: { jkt } };
        throw invalidTokenError('Not a token of the code flow');
      },
      ...(dpop ? { dpop } : {}),
    });

  it('combines readers that agree on DPoP: the proof, then each verifier, then the binding', async () => {
    const group = anyOf(password({ mode: 'allowed', proofs }), code({ mode: 'allowed', proofs }));
    const t = initTRPC.context<{ req: Request }>().create();
    const caller = t.router({ me: t.procedure.use(group).query(({ ctx }) => ctx.token) }).createCaller;
    const url = `${ORIGIN}/me`;
    const ask = async (authorization: string, proof?: string) =>
      caller({ req: new Request(url, { headers: { authorization, ...(proof === undefined ? {} : { dpop: proof }) } }) }).me();
    // The second reader's bound token, with a proof by its key.
    expect(await ask('DPoP code-bound', await signProof(key, { method: 'GET', url, accessToken: 'code-bound' }))).toBe('code-bound');
    expect(await ask('Bearer plain')).toBe('plain');
    await expect(ask('Bearer code-bound')).rejects.toMatchObject({ cause: { code: 'ERR_INVALID_TOKEN', headers: { 'WWW-Authenticate': expect.stringMatching(/^DPoP error="invalid_token"/) } } });
    await expect(ask('DPoP code-bound', await signProof(other, { method: 'GET', url, accessToken: 'code-bound' }))).rejects.toMatchObject({
      cause: { code: 'ERR_INVALID_DPOP_PROOF' },
    });
    await expect(ask('DPoP code-bound')).rejects.toMatchObject({ cause: { code: 'ERR_INVALID_DPOP_PROOF' } });
    await expect(caller({ req: new Request(url) }).me()).rejects.toMatchObject({ cause: { headers: { 'WWW-Authenticate': 'Bearer, DPoP algs="ES256"' } } });
    expect(JSON.stringify(getProcedureSecurity(t.procedure.use(group).query(() => 1)))).toContain('"dpop_bound_access_tokens_required":false');
  });

  // Every request the second reader does not accept is answered as the first reader alone answers
  // it: the same status and the same challenges, the metadata and each refusal's scheme included.
  it.each([
    ['allowed', undefined],
    ['allowed', 'https://api.example.test/.well-known/oauth-protected-resource'],
    ['required', 'https://api.example.test/.well-known/oauth-protected-resource'],
  ] as const)("answers as its first reader alone: mode %s, resourceMetadata %s", async (mode, resourceMetadata) => {
    const scopes = { me: 'Read me', admin: 'Administer' };
    const first = oauth2PasswordBearer({
      tokenUrl: '/token',
      scopes,
      origin: ORIGIN,
      ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
      verify: (token, options) => verify(token, options),
      dpop: { mode, proofs },
    });
    const second = oauth2AuthorizationCodeBearer({
      authorizationUrl: '/authorize',
      tokenUrl: '/token',
      scopes,
      origin: ORIGIN,
      verify: async (): Promise<Principal> => Promise.reject(invalidTokenError('Not a token of the code flow')),
      dpop: { mode, proofs },
    });
    const group = anyOf(first, second);
    const t = initTRPC.context<{ req: Request }>().create();
    const routerOf = (reader: typeof first | typeof group) =>
      t.router({
        me: t.procedure.use(reader.withScopes('me')).query(({ ctx }) => ctx.token),
        admin: t.procedure.use(reader).use(reader.requireScopes('admin')).query(({ ctx }) => ctx.token),
      });
    const alone = routerOf(first).createCaller;
    const together = routerOf(group).createCaller;
    const answer = async (caller: typeof alone, path: 'me' | 'admin', headers: Record<string, string>) =>
      caller({ req: new Request(`${ORIGIN}/${path}`, { headers }) })[path]().then(
        (token) => ({ status: 200, token }),
        (error: { cause?: { status?: number; headers?: Record<string, string> } }) => ({ status: error.cause?.status, challenge: error.cause?.headers?.['WWW-Authenticate'] }),
      );
    const requests = async (path: 'me' | 'admin'): Promise<Record<string, string>[]> => {
      const url = `${ORIGIN}/${path}`;
      return [
        {},
        { authorization: 'DPoP bound' },
        { authorization: 'DPoP bound', dpop: await signProof(key, { method: 'GET', url, accessToken: 'bound' }) },
        { authorization: 'DPoP bound', dpop: await signProof(other, { method: 'GET', url, accessToken: 'bound' }) },
        { authorization: 'DPoP forged', dpop: await signProof(key, { method: 'GET', url, accessToken: 'forged' }) },
        { authorization: 'DPoP plain', dpop: await signProof(key, { method: 'GET', url, accessToken: 'plain' }) },
        { authorization: 'Bearer bound' },
        { authorization: 'Bearer plain' },
        { authorization: 'Bearer forged' },
      ];
    };
    const seen = new Set<string>();
    for (const path of ['me', 'admin'] as const) {
      // Each request is signed anew for each caller: a proof is accepted once.
      const [forAlone, forGroup] = [await requests(path), await requests(path)];
      for (const [index, headers] of forAlone.entries()) {
        const expected = await answer(alone, path, headers);
        expect(await answer(together, path, forGroup[index]!), `${path} ${JSON.stringify(headers.authorization)}`).toEqual(expected);
        seen.add(`${expected.status} ${'challenge' in expected ? expected.challenge : ''}`);
      }
    }
    // The table reaches every kind of answer: the metadata is named, and a missing scope is refused.
    if (resourceMetadata !== undefined) expect([...seen].some((answer) => answer.includes(`resource_metadata="${resourceMetadata}"`))).toBe(true);
    expect([...seen].some((answer) => answer.startsWith('403 DPoP error="insufficient_scope"'))).toBe(true);
    expect([...seen].some((answer) => answer.startsWith('200'))).toBe(true);
  });

  it('refuses readers that disagree on DPoP, at definition', () => {
    expect(() => anyOf(password({ mode: 'allowed', proofs }), code())).toThrow(/do not agree on DPoP/);
    expect(() => anyOf(password(), code({ mode: 'allowed', proofs }))).toThrow(/do not agree on DPoP/);
    expect(() => anyOf(password({ mode: 'allowed', proofs }), code({ mode: 'required', proofs }))).toThrow(/do not agree on DPoP/);
    expect(() => anyOf(password({ mode: 'allowed', proofs }), code({ mode: 'allowed', proofs: dpopProofVerifier() }))).toThrow(/do not agree on DPoP/);
  });
});

// RFC 9470 §3 in the scheme the token came in: a client told to step up in Bearer's scheme would
// be sent to a scheme a DPoP-only resource refuses (RFC 9449 §7.1).
describe('a step-up refusal behind a DPoP reader', () => {
  const METADATA = 'https://api.example.test/.well-known/oauth-protected-resource';
  const stepUp = (mode: 'required' | 'allowed', options: Parameters<typeof requireAuthentication>[1] = {}, autoError = true) => {
    const t = initTRPC.context<{ req: Request }>().create();
    const reader = oauth2PasswordBearer({
      tokenUrl: '/token',
      autoError,
      origin: ORIGIN,
      resourceMetadata: METADATA,
      verify: async (token: string) => {
        if (token === 'bound-pwd') return { scopes: [], cnf: { jkt }, acr: 'pwd' };
        if (token === 'plain-pwd') return { scopes: [], acr: 'pwd' };
        throw invalidTokenError('The access token is invalid');
      },
      dpop: { mode, proofs: dpopProofVerifier({ algorithms: ['ES256'] }) },
    });
    const caller = t.router({ pay: t.procedure.use(reader).use(requireAuthentication({ acrValues: ['mfa'], maxAge: 300 }, options)).query(() => 'paid') }).createCaller;
    return async (authorization: string | undefined, token: string, proof: boolean) => {
      const url = `${ORIGIN}/pay`;
      const headers = { ...(authorization === undefined ? {} : { authorization }), ...(proof ? { dpop: await signProof(key, { method: 'GET', url, accessToken: token }) } : {}) };
      return caller({ req: new Request(url, { headers }) }).pay().then(
        () => 'paid',
        (error: { cause?: { status?: number; headers?: Record<string, string> } }) => `${error.cause?.status} ${error.cause?.headers?.['WWW-Authenticate']}`,
      );
    };
  };

  it('answers a token sent with DPoP in the DPoP scheme, with the requirement, the metadata and the algorithms', async () => {
    const expected =
      '401 DPoP error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="mfa", max_age="300", ' +
      `resource_metadata="${METADATA}", algs="ES256"`;
    expect(await stepUp('required')('DPoP bound-pwd', 'bound-pwd', true)).toBe(expected);
    expect(await stepUp('allowed')('DPoP bound-pwd', 'bound-pwd', true)).toBe(expected);
    // An optional reader that takes DPoP only lets a request without a token through: the step-up
    // asks it for one in the DPoP scheme too; one that takes Bearer as well asks in Bearer's.
    expect(await stepUp('required', {}, false)(undefined, '', false)).toBe(expected);
    expect(await stepUp('allowed', {}, false)(undefined, '', false)).toMatch(/^401 Bearer error="insufficient_user_authentication"/);
  });

  it('answers a token sent as Bearer in the Bearer scheme, and a factory of the application as it says', async () => {
    expect(await stepUp('allowed')('Bearer plain-pwd', 'plain-pwd', false)).toBe(
      '401 Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="mfa", max_age="300"',
    );
    const own = stepUp('required', { makeError: (requirement) => insufficientUserAuthenticationError(requirement, { description: 'Sign in with a second factor' }) });
    expect(await own('DPoP bound-pwd', 'bound-pwd', true)).toBe(
      '401 Bearer error="insufficient_user_authentication", error_description="Sign in with a second factor", acr_values="mfa", max_age="300"',
    );
  });
});

describe('a DPoP reader whose origin is a function of ctx', () => {
  it('checks htu under the origin of each request\'s ctx', async () => {
    const t = initTRPC.context<{ req: Request; origin: string }>().create();
    const reader = oauth2PasswordBearer({
      tokenUrl: '/token',
      origin: (ctx: { origin: string }) => ctx.origin,
      verify: (token, options) => verify(token, options),
      dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256'] }) },
    });
    const caller = t.router({ me: t.procedure.use(reader).query(({ ctx }) => ctx.token) }).createCaller;
    // The server saw a loopback URL; the client used the public one its ctx names.
    const ask = async (origin: string, htuOrigin: string) =>
      caller({
        origin,
        req: new Request('http://127.0.0.1:8080/me', {
          headers: { authorization: 'DPoP bound', dpop: await signProof(key, { method: 'GET', url: `${htuOrigin}/me`, accessToken: 'bound' }) },
        }),
      }).me();
    expect(await ask('https://a.example', 'https://a.example')).toBe('bound');
    expect(await ask('https://b.example', 'https://b.example')).toBe('bound');
    await expect(ask('https://a.example', 'https://b.example')).rejects.toMatchObject({ cause: { code: 'ERR_INVALID_DPOP_PROOF', message: 'The DPoP proof htu does not match the request URL' } });
    await expect(ask('https://a.example', 'http://127.0.0.1:8080')).rejects.toMatchObject({ cause: { code: 'ERR_INVALID_DPOP_PROOF' } });
  });

  it('hands the ctx to the proof checker, which may pick its replay store by it', async () => {
    const seen: unknown[] = [];
    const inner = dpopProofVerifier({ algorithms: ['ES256'] });
    const proofs = Object.assign((request: Parameters<typeof inner>[0]) => (seen.push(request.ctx), inner(request)), { algorithms: inner.algorithms, nonces: undefined });
    const t = initTRPC.context<{ req: Request; server: string }>().create();
    const reader = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify: (token, options) => verify(token, options), dpop: { mode: 'required', proofs } });
    const ctx = {
      server: 'a',
      req: new Request(`${ORIGIN}/me`, { headers: { authorization: 'DPoP bound', dpop: await signProof(key, { method: 'GET', url: `${ORIGIN}/me`, accessToken: 'bound' }) } }),
    };
    expect(await t.router({ me: t.procedure.use(reader).query(({ ctx }) => ctx.token) }).createCaller(ctx).me()).toBe('bound');
    expect(seen).toEqual([ctx]);
  });
});

/**
 * docs/contract.md#dpop and #challenges: a DPoP reader given `resourceMetadata` names it in every
 * challenge (RFC 9728 §5.1 allows it in any scheme's), and a token sent with DPoP that lacks a
 * scope is answered in the DPoP scheme (RFC 9449 §7.1): Bearer would name a scheme a DPoP-only
 * resource refuses. Where DPoP is only allowed, a bearer token lacks it in Bearer's.
 */
describe.each(ADAPTERS)("a DPoP reader's challenges over the %s adapter", (adapter) => {
  const METADATA = 'https://api.example.test/.well-known/oauth-protected-resource/trpc';
  const RM = `resource_metadata="${METADATA}"`;
  const servers = new Map<string, RunningServer>();
  beforeAll(async () => {
    const t = initTRPC.context<{ req?: unknown }>().create();
    for (const mode of ['allowed', 'required'] as const) {
      const reader = oauth2PasswordBearer({
        tokenUrl: '/token',
        scopes: { me: 'Read me', admin: 'Administer' },
        origin: ORIGIN,
        resourceMetadata: METADATA,
        verify: (token, options) => verify(token, options),
        dpop: { mode, proofs: dpopProofVerifier({ algorithms: ['ES256', 'EdDSA'] }) },
      });
      const router = t.router({
        me: t.procedure.use(reader.withScopes('me')).query(({ ctx }) => ctx.token),
        admin: t.procedure.use(reader.withScopes('admin')).query(({ ctx }) => ctx.token),
      });
      servers.set(mode, await serveRouter(router, adapter));
    }
  });
  afterAll(() => Promise.all([...servers.values()].map((server) => server.close())));

  const call = async (mode: 'allowed' | 'required', procedure: 'me' | 'admin', authorization?: string, proof?: 'good' | 'other-key') => {
    const base = servers.get(mode)!.url;
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    if (proof !== undefined) {
      headers.dpop = await signProof(proof === 'good' ? key : other, { method: 'GET', url: `${ORIGIN}/trpc/${procedure}`, accessToken: authorization!.split(' ')[1]! });
    }
    const response = await fetch(`${base}/${procedure}`, { headers });
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };

  it.each([
    ['no credentials where DPoP is allowed', 'allowed', 'me', undefined, undefined, 401, `Bearer ${RM}, DPoP ${RM}, ${ALGS}`],
    ['no credentials where DPoP is required', 'required', 'me', undefined, undefined, 401, `DPoP ${RM}, ${ALGS}`],
    ['no proof', 'allowed', 'me', 'DPoP bound', undefined, 401, `DPoP error="invalid_dpop_proof", error_description="A DPoP proof is required", ${RM}, ${ALGS}`],
    ["another key's proof", 'required', 'me', 'DPoP bound', 'other-key', 401,
      `DPoP error="invalid_dpop_proof", error_description="The DPoP proof key is not the key the access token is bound to", ${RM}, ${ALGS}`],
    ['a token the verifier refuses, sent as DPoP', 'required', 'me', 'DPoP forged', 'good', 401,
      `DPoP error="invalid_token", error_description="The access token is invalid", ${RM}, ${ALGS}`],
    ['the bound token as Bearer', 'allowed', 'me', 'Bearer bound', undefined, 401,
      `DPoP error="invalid_token", error_description="The access token is DPoP-bound: send it with the DPoP scheme and a proof", ${RM}, ${ALGS}`],
    ['a missing scope, DPoP required', 'required', 'admin', 'DPoP bound', 'good', 403, `DPoP error="insufficient_scope", scope="admin", ${RM}, ${ALGS}`],
    ['a missing scope of a token sent with DPoP, DPoP allowed', 'allowed', 'admin', 'DPoP bound', 'good', 403, `DPoP error="insufficient_scope", scope="admin", ${RM}, ${ALGS}`],
    ['a missing scope of a bearer token, DPoP allowed', 'allowed', 'admin', 'Bearer plain', undefined, 403, `Bearer error="insufficient_scope", scope="admin", ${RM}`],
    ['a bearer token the verifier refuses, DPoP allowed', 'allowed', 'me', 'Bearer forged', undefined, 401,
      `Bearer error="invalid_token", error_description="The access token is invalid", ${RM}`],
  ] as const)('%s', async (_, mode, procedure, authorization, proof, status, challenge) => {
    expect(await call(mode, procedure, authorization, proof)).toEqual({ status, challenge });
  });

  it('answers a nonce request with resource_metadata too', async () => {
    const t = initTRPC.context<{ req?: unknown }>().create();
    const reader = oauth2PasswordBearer({
      tokenUrl: '/token',
      origin: ORIGIN,
      resourceMetadata: METADATA,
      verify: (token, options) => verify(token, options),
      dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256', 'EdDSA'], nonces: dpopNonces({ secret: NONCE_SECRET }) }) },
    });
    const caller = t.router({ me: t.procedure.use(reader).query(() => 'ran') }).createCaller;
    const req = new Request(`${ORIGIN}/me`, { headers: { authorization: 'DPoP bound', dpop: await signProof(key, { method: 'GET', url: `${ORIGIN}/me`, accessToken: 'bound' }) } });
    await expect(caller({ req }).me()).rejects.toMatchObject({
      cause: { code: 'ERR_USE_DPOP_NONCE', headers: { 'WWW-Authenticate': `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", ${RM}, ${ALGS}` } },
    });
  });

  it("keeps the application's own insufficient-scope factory for DPoP requests", async () => {
    const t = initTRPC.context<{ req?: unknown }>().create();
    const reader = oauth2PasswordBearer({
      tokenUrl: '/token',
      scopes: { admin: 'Administer' },
      origin: ORIGIN,
      verify: (token, options) => verify(token, options),
      makeInsufficientScopeError: () => invalidTokenError('custom'),
      dpop: { mode: 'required' },
    });
    const caller = t.router({ admin: t.procedure.use(reader.withScopes('admin')).query(() => 'ran') }).createCaller;
    const req = new Request(`${ORIGIN}/admin`, { headers: { authorization: 'DPoP bound', dpop: await signProof(key, { method: 'GET', url: `${ORIGIN}/admin`, accessToken: 'bound' }) } });
    await expect(caller({ req }).admin()).rejects.toMatchObject({ message: 'custom' });
  });
});

// RFC 9449 §4.3 checks a proof against the method and URL of its request: with no request on ctx
// there is none to check it against, and a proof is refused, never checked against a URL made up
// from the procedure's path (docs/contract.md#dpop).
describe('a DPoP reader with no request on ctx', () => {
  const t = initTRPC.context<{ headers?: Record<string, unknown> }>().create();
  const reader = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify: (token, options) => verify(token, options), dpop: { mode: 'required', proofs: dpopProofVerifier() } });
  const router = t.router({ me: t.procedure.use(reader).query(({ ctx }) => ctx.token) });
  const refusal =
    'DPoP error="invalid_dpop_proof", error_description="The DPoP proof cannot be checked: the request it was made for is not on ctx (ctx.req)", algs="ES256 ES384 ES512 PS256 PS384 PS512 RS256 RS384 RS512 EdDSA Ed25519"';

  it('refuses a proof over HTTP when the context holds the headers only, whatever URL the proof names', async () => {
    const { createHTTPServer } = await import('@trpc/server/adapters/standalone');
    const { closing, listening } = await import('@trpc-oauth2/test-kit');
    const { oauth2ResponseMeta } = await import('../../src/index.js');
    const server = createHTTPServer({ router, basePath: '/trpc/', createContext: ({ req }) => ({ headers: req.headers }), responseMeta: oauth2ResponseMeta() });
    server.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${await listening(server)}`;
    try {
      for (const url of [`${ORIGIN}/trpc/me`, `${ORIGIN}/me`]) {
        const proof = await signProof(key, { method: 'GET', url, accessToken: 'bound' });
        const answer = await fetch(`${base}/trpc/me`, { headers: { authorization: 'DPoP bound', dpop: proof } });
        expect(answer.status).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe(refusal);
      }
    } finally {
      await closing(server);
    }
  });

  it('refuses a proof through createCaller with headers only', async () => {
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}/me`, accessToken: 'bound' });
    await expect(t.createCallerFactory(router)({ headers: { authorization: 'DPoP bound', dpop: proof } }).me()).rejects.toMatchObject({
      cause: { headers: { 'WWW-Authenticate': refusal } },
    });
  });
});
