/**
 * A resource server's refusal whose description has no RFC 6750 `error_description` character left
 * (text in another script) is never answered with an empty message: like `invalidTokenError` and
 * the DPoP refusals of `dpopRefusal`, `insufficientUserAuthenticationError` and
 * `useDPoPNonceError` fall back to their fixed text, while the challenge leaves
 * `error_description` out (RFC 6750 §3 makes it optional). docs/contract.md#step-up-authentication,
 * docs/contract.md#dpop.
 */
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOAuth2Error } from '../src/index.js';
import { oauth2ErrorData } from '../src/token-endpoint/index.js';
import { insufficientUserAuthenticationError, invalidTokenError } from '../src/errors-entry.js';
import { dpopInsufficientUserAuthenticationError, dpopInvalidTokenError, invalidDPoPProofError, useDPoPNonceError } from '../src/dpop/index.js';
import { ADAPTERS, query, serveOnEveryAdapter, type Adapter, type RunningServer } from './support/serve.js';

const ALGORITHMS = ['ES256'];
/** Descriptions with no `error_description` character left but spaces. */
const FOREIGN = ['认证级别不足', 'Ошибка', ' \u00e9\u00e8 '];

const STEP_UP = 'A different authentication level is required';
const NONCE = 'Resource server requires nonce in DPoP proof';

describe.each(FOREIGN)('a description that filters to nothing (%j)', (description) => {
  it.each([
    ['insufficientUserAuthenticationError', () => insufficientUserAuthenticationError({ acrValues: ['urn:example:mfa'] }, { description }), STEP_UP,
      'Bearer error="insufficient_user_authentication", acr_values="urn:example:mfa"'],
    ['dpopInsufficientUserAuthenticationError', () => dpopInsufficientUserAuthenticationError({ maxAge: 60 }, { algorithms: ALGORITHMS, description }), STEP_UP,
      'DPoP error="insufficient_user_authentication", max_age="60", algs="ES256"'],
    ['useDPoPNonceError', () => useDPoPNonceError('n-1', { algorithms: ALGORITHMS, description }), NONCE, 'DPoP error="use_dpop_nonce", algs="ES256"'],
    // Those that already fell back, for comparison.
    ['invalidTokenError', () => invalidTokenError(description), 'Could not validate credentials', 'Bearer error="invalid_token"'],
    ['dpopInvalidTokenError', () => dpopInvalidTokenError(description, { algorithms: ALGORITHMS }), 'Could not validate credentials', 'DPoP error="invalid_token", algs="ES256"'],
    ['invalidDPoPProofError', () => invalidDPoPProofError(description, { algorithms: ALGORITHMS }), 'The DPoP proof is invalid', 'DPoP error="invalid_dpop_proof", algs="ES256"'],
  ] as const)('%s falls back to its fixed message; the challenge leaves error_description out', (_name, make, message, challenge) => {
    const error = make();
    expect(error.message).toBe(message);
    const cause = getOAuth2Error(error)!;
    expect(cause.message).toBe(message);
    expect(cause.headers['WWW-Authenticate']).toBe(challenge);
    expect(oauth2ErrorData(error)?.error_description).toBe(message);
  });
});

describe('a description with error_description characters left', () => {
  it('is kept, cleaned, in the message and the challenge', () => {
    const stepUp = insufficientUserAuthenticationError({ acrValues: ['mfa'] }, { description: 'Use MFA 认证' });
    expect(stepUp.message).toBe('Use MFA ');
    expect(getOAuth2Error(stepUp)?.headers['WWW-Authenticate']).toBe('Bearer error="insufficient_user_authentication", error_description="Use MFA ", acr_values="mfa"');
    const nonce = useDPoPNonceError('n-1', { algorithms: ALGORITHMS, description: 'Use "this" nonce' });
    expect(nonce.message).toBe('Use this nonce');
    expect(getOAuth2Error(nonce)?.headers['WWW-Authenticate']).toBe('DPoP error="use_dpop_nonce", error_description="Use this nonce", algs="ES256"');
  });

  it('the defaults are unchanged', () => {
    expect(insufficientUserAuthenticationError({ maxAge: 0 }).message).toBe(STEP_UP);
    expect(useDPoPNonceError('n-1', { algorithms: ALGORITHMS }).message).toBe(NONCE);
  });
});

// Over HTTP, through tRPC's own adapters: the answer's message is never empty.
const t = initTRPC.create();
const router = t.router({
  stepUp: t.procedure.query(() => {
    throw insufficientUserAuthenticationError({ acrValues: ['urn:example:mfa'] }, { description: '认证级别不足' });
  }),
  nonce: t.procedure.query(() => {
    throw useDPoPNonceError('n-1', { algorithms: ALGORITHMS, description: '需要随机数' });
  }),
});

let servers: Record<Adapter, RunningServer>;
beforeAll(async () => {
  servers = await serveOnEveryAdapter(router);
});
afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

describe.each(ADAPTERS)('over tRPC’s %s adapter', (adapter) => {
  it('a step-up refusal with a foreign description has its fixed message', async () => {
    const answer = await query(servers[adapter], 'stepUp');
    expect(answer.status).toBe(401);
    expect(answer.body.error?.message).toBe(STEP_UP);
    expect(answer.challenge).toBe('Bearer error="insufficient_user_authentication", acr_values="urn:example:mfa"');
  });

  it('a nonce refusal with a foreign description has its fixed message', async () => {
    const answer = await query(servers[adapter], 'nonce');
    expect(answer.status).toBe(401);
    expect(answer.body.error?.message).toBe(NONCE);
    expect(answer.challenge).toBe('DPoP error="use_dpop_nonce", algs="ES256"');
  });
});
