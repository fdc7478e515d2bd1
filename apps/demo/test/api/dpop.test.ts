/**
 * docs/contract.md#dpop against the real things: DPoP-bound tokens of both ways in (the demo's
 * password flow, and oidc-provider at /oidc), used through oauth4webapi's DPoP client on the
 * demo's tRPC and REST faces. A bound call succeeds; every way a proof can be wrong is refused
 * with its challenge — one table row per case, per token, per face.
 */
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { dpopFetch, dpopHandle, dpopProofFor, newDPoPKey, withDPoPNonce, type StoredDPoPKey } from '../../src/client/dpop.js';
import { aliceCode } from '../support/authorization-code.js';
import { demoForThisFile, SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();
const LOOPBACK_HTTP = { [oauth.allowInsecureRequests]: true } as const;
const ALGS = 'algs="ES256 EdDSA Ed25519 PS256 RS256"';
const refusedProof = (description: string) => `DPoP error="invalid_dpop_proof", error_description="${description}", ${ALGS}`;

let key: StoredDPoPKey;
let otherKey: StoredDPoPKey;
let handle: oauth.DPoPHandle;
/** DPoP-bound access tokens of `key`, by way in. */
const tokens = {} as Record<'password' | 'oidc', string>;
/** The API's current nonce, as it sent it with `use_dpop_nonce`. */
let nonce: string;

/** The password flow at the demo's token endpoint, through oauth4webapi (the nonce round trip included). */
async function passwordToken(): Promise<oauth.TokenEndpointResponse> {
  const as: oauth.AuthorizationServer = { issuer: demo.url, token_endpoint: `${demo.url}/api/token` };
  const client: oauth.Client = { client_id: 'demo-cli' };
  const params = { username: 'alice', password: 'wonderland', scope: 'me items' };
  return withDPoPNonce(async () =>
    oauth.processGenericTokenEndpointResponse(
      as,
      client,
      await oauth.genericTokenEndpointRequest(as, client, oauth.ClientSecretBasic('demo-cli-secret'), 'password', params, { DPoP: handle, ...LOOPBACK_HTTP }),
    ),
  );
}

/** The authorization-code flow with PKCE at oidc-provider, redeemed through oauth4webapi with a proof. */
async function oidcToken(): Promise<oauth.TokenEndpointResponse> {
  const issuer = new URL(`${demo.url}/oidc`);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...LOOPBACK_HTTP }));
  const client: oauth.Client = { client_id: 'swagger-ui' };
  const state = oauth.generateRandomState();
  const { back, redirectUri, codeVerifier } = await aliceCode(demo.url, { state });
  const params = oauth.validateAuthResponse(as, client, back, state);
  // A handle of its own for the same key: oauth4webapi keeps nonces by origin, and the demo's
  // token endpoint and API (whose nonces oidc-provider does not know) share this one.
  const forAuthorizationServer = await dpopHandle(key);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, codeVerifier, {
    DPoP: forAuthorizationServer,
    ...LOOPBACK_HTTP,
  });
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

beforeAll(async () => {
  [key, otherKey] = await Promise.all([newDPoPKey(), newDPoPKey()]);
  handle = await dpopHandle(key);
  const [password, oidc] = await Promise.all([passwordToken(), oidcToken()]);
  for (const answer of [password, oidc]) expect(answer.token_type).toBe('dpop');
  tokens.password = password.access_token;
  tokens.oidc = oidc.access_token;
  // The API asks for its own nonce (RFC 9449 §9): the answer to a proof without one.
  const asked = await fetch(`${demo.url}/api/users/me`, {
    headers: { authorization: `DPoP ${tokens.password}`, dpop: await dpopProofFor(await dpopHandle(key), tokens.password, 'GET', new URL(`${demo.url}/api/users/me`)) },
  });
  expect(asked.status).toBe(401);
  nonce = asked.headers.get('dpop-nonce')!;
  expect(nonce).toMatch(/^[\w-]{43}$/);
}, SERVER_TIMEOUT_MS);

const FACES = {
  rest: { path: '/api/users/me', read: (body: any) => body.username },
  trpc: { path: '/trpc/users.me', read: (body: any) => body.result.data.json.username },
} as const;
type Face = keyof typeof FACES;

interface Sent {
  authorization: string;
  proof?: string;
}

/** A handle of `stored` whose proofs carry the API's nonce, changed by `change`. */
const handleWith = (stored: StoredDPoPKey, change: (payload: Record<string, unknown>) => void = () => {}) =>
  dpopHandle(stored, {
    [oauth.modifyAssertion]: (_header, payload) => {
      payload.nonce = nonce;
      change(payload);
    },
  });
/** A proof oauth4webapi makes for `token` on a `method` request to `path`, by `by`. */
const proofBy = async (by: Promise<oauth.DPoPHandle>, token: string, method: string, path: string) =>
  dpopProofFor(await by, token, method, new URL(`${demo.url}${path}`));

type Case = [name: string, build: (face: Face, token: string) => Promise<Sent>, challenge: string];
const CASES: Case[] = [
  [
    'the bound token as Bearer',
    async (_face, token) => ({ authorization: `Bearer ${token}` }),
    `DPoP error="invalid_token", error_description="The access token is DPoP-bound: send it with the DPoP scheme and a proof", ${ALGS}`,
  ],
  [
    "another key's proof",
    async (face, token) => ({ authorization: `DPoP ${token}`, proof: await proofBy(handleWith(otherKey), token, 'GET', FACES[face].path) }),
    refusedProof('The DPoP proof key is not the key the access token is bound to'),
  ],
  [
    'a wrong htm',
    async (face, token) => ({ authorization: `DPoP ${token}`, proof: await proofBy(handleWith(key), token, 'POST', FACES[face].path) }),
    refusedProof('The DPoP proof htm does not match the request method'),
  ],
  [
    'a wrong htu',
    async (face, token) => ({ authorization: `DPoP ${token}`, proof: await proofBy(handleWith(key), token, 'GET', `${FACES[face].path}/items`) }),
    refusedProof('The DPoP proof htu does not match the request URL'),
  ],
  [
    'a wrong ath',
    async (face, token) => ({ authorization: `DPoP ${token}`, proof: await proofBy(handleWith(key), `${token}x`, 'GET', FACES[face].path) }),
    refusedProof('The DPoP proof ath does not match the access token'),
  ],
  [
    'a stale iat',
    async (face, token) => ({
      authorization: `DPoP ${token}`,
      proof: await proofBy(handleWith(key, (p) => (p.iat = (p.iat as number) - 120)), token, 'GET', FACES[face].path),
    }),
    refusedProof('The DPoP proof is too old'),
  ],
  [
    'a future iat',
    async (face, token) => ({
      authorization: `DPoP ${token}`,
      proof: await proofBy(handleWith(key, (p) => (p.iat = (p.iat as number) + 120)), token, 'GET', FACES[face].path),
    }),
    refusedProof('The DPoP proof is issued in the future'),
  ],
  [
    'no nonce, which the API requires',
    async (face, token) => ({ authorization: `DPoP ${token}`, proof: await proofBy(dpopHandle(key), token, 'GET', FACES[face].path) }),
    `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", ${ALGS}`,
  ],
  [
    'no proof',
    async (_face, token) => ({ authorization: `DPoP ${token}` }),
    refusedProof('A DPoP proof is required'),
  ],
  [
    'a jti holding a NUL, which the replay store could not keep',
    async (face, token) => ({
      authorization: `DPoP ${token}`,
      proof: await proofBy(handleWith(key, (p) => (p.jti = `${p.jti as string}\u0000`)), token, 'GET', FACES[face].path),
    }),
    refusedProof('The DPoP proof has no valid jti'),
  ],
];

const send = (face: Face, { authorization, proof }: Sent) =>
  fetch(`${demo.url}${FACES[face].path}`, { headers: { authorization, ...(proof === undefined ? {} : { dpop: proof }) } });

describe.each(['rest', 'trpc'] as const)('DPoP-bound tokens on the %s face', (face) => {
  describe.each(['password', 'oidc'] as const)('issued by the %s way in', (way) => {
    it('a call through oauth4webapi with a proof by the bound key succeeds', async () => {
      const response = await dpopFetch(handle, () => tokens[way])(`${demo.url}${FACES[face].path}`);
      expect(response.status).toBe(200);
      expect(FACES[face].read(await response.json())).toBe('alice');
    });

    it.each(CASES)('%s is refused with its challenge', async (_name, build, challenge) => {
      const response = await send(face, await build(face, tokens[way]));
      expect({ status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({ status: 401, challenge });
      if (challenge.includes('use_dpop_nonce')) expect(response.headers.get('dpop-nonce')).toBe(nonce);
    });

    it('a replayed proof is refused', async () => {
      const proof = await proofBy(handleWith(key), tokens[way], 'GET', FACES[face].path);
      expect((await send(face, { authorization: `DPoP ${tokens[way]}`, proof })).status).toBe(200);
      const replayed = await send(face, { authorization: `DPoP ${tokens[way]}`, proof });
      expect({ status: replayed.status, challenge: replayed.headers.get('www-authenticate') }).toEqual({
        status: 401,
        challenge: refusedProof('The DPoP proof was already used'),
      });
    });
  });

  it('plain bearer tokens still work beside DPoP', async () => {
    const login = await fetch(`${demo.url}/api/token`, { method: 'POST', body: new URLSearchParams({ username: 'bob', password: 'builder' }) });
    const { access_token, token_type } = (await login.json()) as { access_token: string; token_type: string };
    expect(token_type).toBe('Bearer');
    expect((await fetch(`${demo.url}${FACES[face].path}`, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(200);
  });
});

describe("the password flow's DPoP-bound refresh token (RFC 9449 §5)", () => {
  const client: oauth.Client = { client_id: 'demo-cli' };
  const refresh = async (refreshToken: string, DPoP?: oauth.DPoPHandle) => {
    const as: oauth.AuthorizationServer = { issuer: demo.url, token_endpoint: `${demo.url}/api/token` };
    const response = await withDPoPNonce(async () => {
      const answer = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic('demo-cli-secret'), refreshToken, {
        ...(DPoP === undefined ? {} : { DPoP }),
        ...LOOPBACK_HTTP,
      });
      // A nonce asked for is thrown to withDPoPNonce, which asks again with it.
      if (answer.status === 400 && DPoP !== undefined) await oauth.processRefreshTokenResponse(as, client, answer.clone()).catch((error) => {
        if (oauth.isDPoPNonceError(error)) throw error;
      });
      return answer;
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('is refused without a proof and with another key’s proof, left unspent, then refreshed with its own key', async () => {
    const { refresh_token } = await passwordToken();
    expect(refresh_token).toEqual(expect.any(String));
    const wrongKey = { status: 400, body: { error: 'invalid_grant', error_description: 'The refresh token is bound to another DPoP key' } };
    expect(await refresh(refresh_token!)).toEqual(wrongKey);
    expect(await refresh(refresh_token!, await dpopHandle(otherKey))).toEqual(wrongKey);
    // Neither refusal spent it: the bound key still refreshes it, into tokens bound to the same key.
    const renewed = await refresh(refresh_token!, handle);
    expect(renewed.status).toBe(200);
    expect(renewed.body.token_type).toBe('DPoP');
    const me = await fetch(`${demo.url}/api/users/me`, {
      headers: {
        authorization: `DPoP ${renewed.body.access_token}`,
        dpop: await proofBy(handleWith(key), renewed.body.access_token as string, 'GET', '/api/users/me'),
      },
    });
    expect(me.status).toBe(200);
  });

  it('is refused with a replayed proof before the grant runs, and left unspent', async () => {
    const first = await passwordToken();
    // Every proof of this handle carries one jti: the second request's is a replay of the first's.
    const jti = crypto.randomUUID();
    const replaying = await dpopHandle(key, { [oauth.modifyAssertion]: (_header, payload) => void (payload.jti = jti) });
    const renewed = await refresh(first.refresh_token!, replaying);
    expect(renewed.status).toBe(200);
    const next = renewed.body.refresh_token as string;
    expect(await refresh(next, replaying)).toEqual({ status: 400, body: { error: 'invalid_dpop_proof', error_description: 'The DPoP proof was already used' } });
    // The replay did not spend it: a fresh proof refreshes it.
    expect((await refresh(next, handle)).status).toBe(200);
  });

  it('is refused with a proof whose jti holds a NUL before the grant runs, and left unspent', async () => {
    const { refresh_token } = await passwordToken();
    const nul = await dpopHandle(key, { [oauth.modifyAssertion]: (_header, payload) => void (payload.jti = `${payload.jti as string}\u0000`) });
    expect(await refresh(refresh_token!, nul)).toEqual({ status: 400, body: { error: 'invalid_dpop_proof', error_description: 'The DPoP proof has no valid jti' } });
    expect((await refresh(refresh_token!, handle)).status).toBe(200);
  });
});
