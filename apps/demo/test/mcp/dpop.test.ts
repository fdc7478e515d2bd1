/**
 * DPoP at the MCP endpoint (RFC 9449, docs/contract.md#dpop): a token the authorization server at
 * /oidc bound to a client's key for the MCP resource, sent through oauth4webapi's DPoP client,
 * calls a tool; a replayed proof, a proof for another URL, another key's proof, and the bound
 * token sent as Bearer are refused with their DPoP challenges; the 401 of a request without a
 * token names both schemes, and the metadata the proof algorithms.
 */
import { calculateJwkThumbprint, decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { dpopFetch, dpopHandle, dpopProofFor, newDPoPKey, type StoredDPoPKey } from '../../src/client/dpop.js';
import { aliceCode } from '../support/authorization-code.js';
import { demoForThisFile, SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { signMcpToken } from '../support/tokens.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();
const LOOPBACK_HTTP = { [oauth.allowInsecureRequests]: true } as const;
const ALGS = 'algs="ES256 EdDSA Ed25519 PS256 RS256"';

let key: StoredDPoPKey;
let otherKey: StoredDPoPKey;
/** alice's token for the MCP resource, bound to `key`. */
let token: string;
/** The endpoint's current nonce, as it sent it with `use_dpop_nonce`. */
let nonce: string;
let mcpUrl: URL;
let metadataUrl: string;

const TOOL_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** The authorization-code flow for the MCP resource, the code redeemed through oauth4webapi with a proof of `key`. */
async function boundMcpToken(): Promise<oauth.TokenEndpointResponse> {
  const issuer = new URL(`${demo.url}/oidc`);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...LOOPBACK_HTTP }));
  const client: oauth.Client = { client_id: 'swagger-ui' };
  const state = oauth.generateRandomState();
  const { back, redirectUri, codeVerifier } = await aliceCode(demo.url, { state, resource: mcpUrl.href });
  const params = oauth.validateAuthResponse(as, client, back, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, codeVerifier, {
    DPoP: await dpopHandle(key),
    additionalParameters: { resource: mcpUrl.href },
    ...LOOPBACK_HTTP,
  });
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

/** A handle of `stored` whose proofs carry the endpoint's nonce. */
const handleWith = (stored: StoredDPoPKey) =>
  dpopHandle(stored, {
    [oauth.modifyAssertion]: (_header, payload) => {
      payload.nonce = nonce;
    },
  });

const post = (authorization: string, proof?: string) =>
  fetch(mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, authorization, ...(proof === undefined ? {} : { dpop: proof }) }, body: TOOL_CALL });

const refusal = async (response: Response) => ({ status: response.status, challenge: response.headers.get('www-authenticate') });

beforeAll(async () => {
  mcpUrl = new URL(`${demo.url}/mcp`);
  metadataUrl = `${demo.url}/.well-known/oauth-protected-resource/mcp`;
  [key, otherKey] = await Promise.all([newDPoPKey(), newDPoPKey()]);
  const answer = await boundMcpToken();
  expect(answer.token_type).toBe('dpop');
  token = answer.access_token;
  const claims = decodeJwt(token);
  expect(claims.aud).toBe(mcpUrl.href);
  expect((claims.cnf as { jkt?: string } | undefined)?.jkt).toMatch(/^[\w-]{43}$/);
  // The endpoint asks for the API's nonce (RFC 9449 §9): the answer to a proof without one.
  const asked = await post(`DPoP ${token}`, await dpopProofFor(await dpopHandle(key), token, 'POST', mcpUrl));
  expect(await refusal(asked)).toEqual({
    status: 401,
    challenge: `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", resource_metadata="${metadataUrl}", ${ALGS}`,
  });
  nonce = asked.headers.get('dpop-nonce')!;
  expect(nonce).toMatch(/^[\w-]{43}$/);
  // A browser's MCP client reads the nonce from another origin.
  expect(asked.headers.get('access-control-expose-headers')).toContain('DPoP-Nonce');
}, SERVER_TIMEOUT_MS);

describe('DPoP-bound tokens at /mcp', () => {
  it('a tool call through oauth4webapi with a proof by the bound key succeeds', async () => {
    const response = await dpopFetch(await dpopHandle(key), () => token)(mcpUrl, { method: 'POST', headers: MCP_HEADERS, body: TOOL_CALL });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { content: { text: string }[] } };
    expect(JSON.parse(body.result.content[0]!.text)).toMatchObject({ username: 'alice' });
  });

  it('a replayed proof is refused', async () => {
    const proof = await dpopProofFor(await handleWith(key), token, 'POST', mcpUrl);
    expect((await post(`DPoP ${token}`, proof)).status).toBe(200);
    expect(await refusal(await post(`DPoP ${token}`, proof))).toEqual({
      status: 401,
      challenge: `DPoP error="invalid_dpop_proof", error_description="The DPoP proof was already used", resource_metadata="${metadataUrl}", ${ALGS}`,
    });
  });

  it.each([
    ['a proof for another URL', () => handleWith(key), () => new URL(`${demo.url}/api/users/me`), 'POST', 'The DPoP proof htu does not match the request URL'],
    ['a proof for another method', () => handleWith(key), () => mcpUrl, 'GET', 'The DPoP proof htm does not match the request method'],
    ["another key's proof", () => handleWith(otherKey), () => mcpUrl, 'POST', 'The DPoP proof key is not the key the access token is bound to'],
  ] as const)('%s is refused', async (_name, handle, url, method, description) => {
    const proof = await dpopProofFor(await handle(), token, method, url());
    expect(await refusal(await post(`DPoP ${token}`, proof))).toEqual({
      status: 401,
      challenge: `DPoP error="invalid_dpop_proof", error_description="${description}", resource_metadata="${metadataUrl}", ${ALGS}`,
    });
  });

  it('the bound token sent as Bearer is refused', async () => {
    expect(await refusal(await post(`Bearer ${token}`))).toEqual({
      status: 401,
      challenge: `DPoP error="invalid_token", error_description="The access token is DPoP-bound: send it with the DPoP scheme and a proof", resource_metadata="${metadataUrl}", ${ALGS}`,
    });
  });

  it("a token bound to the proof's key whose user no longer exists is refused in the DPoP scheme, as the API refuses it", async () => {
    const gone = await signMcpToken(demo, 'mallory', { cnf: { jkt: await calculateJwkThumbprint(key.publicJwk) } });
    const proof = await dpopProofFor(await handleWith(key), gone, 'POST', mcpUrl);
    expect(await refusal(await post(`DPoP ${gone}`, proof))).toEqual({
      status: 401,
      challenge: `DPoP error="invalid_token", error_description="The user of this token no longer exists", resource_metadata="${metadataUrl}", ${ALGS}`,
    });
  });

  it('a request without a token is challenged in both schemes, and the metadata names the proof algorithms', async () => {
    expect(await refusal(await fetch(mcpUrl, { method: 'POST', headers: MCP_HEADERS, body: TOOL_CALL }))).toEqual({
      status: 401,
      challenge: `Bearer scope="me", resource_metadata="${metadataUrl}", DPoP scope="me", resource_metadata="${metadataUrl}", ${ALGS}`,
    });
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256'], dpop_bound_access_tokens_required: false });
  });
});
