import { initTRPC, type TRPCError } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import { oauth2PasswordBearer, type ClientCredentials, type Principal, type TokenVerifier } from '../../src/index.js';
import {
  DPOP_ALGORITHMS,
  dpopChallenge,
  dpopNonces,
  dpopNotAuthenticatedError,
  dpopProofVerifier,
  invalidDPoPProofError,
  memoryReplayStore,
  useDPoPNonceError,
  type DPoPAlgorithm,
  type DPoPCheck,
  type DPoPProof,
  type DPoPProofVerifier,
  type DPoPRefusal,
  type ReaderDPoPOptions,
} from '../../src/dpop/index.js';
import { tokenEndpoint, type TokenEndpointDPoPOptions } from '../../src/token-endpoint/index.js';

// DPoP (RFC 9449): the pinned algorithms, the checker's answer and the options of the readers and
// the token endpoint (docs/contract.md#dpop).

// The algorithms are a closed, literal list: asymmetric only, never `none` or HMAC.
expectTypeOf(DPOP_ALGORITHMS).toEqualTypeOf<readonly ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA', 'Ed25519']>();
expectTypeOf<DPoPAlgorithm>().toEqualTypeOf<(typeof DPOP_ALGORITHMS)[number]>();
expectTypeOf<'HS256'>().not.toExtend<DPoPAlgorithm>();
dpopProofVerifier({ algorithms: ['ES256', 'EdDSA'], maxAge: 60, clockSkew: 10 });
// @ts-expect-error a proof is signed with the client's private key: HMAC is no DPoP algorithm
dpopProofVerifier({ algorithms: ['HS256'] });
// @ts-expect-error none is no algorithm
dpopProofVerifier({ algorithms: ['none'] });
// @ts-expect-error maxAge is a number of seconds
dpopProofVerifier({ maxAge: '60s' });

// The checker says which algorithms it accepts, and answers a proof or a refusal, never throws.
const proofs = dpopProofVerifier({ algorithms: ['ES256'], replay: memoryReplayStore(), nonces: dpopNonces({ secret: 'x'.repeat(32) }) });
expectTypeOf(proofs).toEqualTypeOf<DPoPProofVerifier>();
expectTypeOf(proofs.algorithms).toEqualTypeOf<readonly DPoPAlgorithm[]>();
expectTypeOf(proofs).returns.toEqualTypeOf<Promise<DPoPCheck>>();
declare const checked: DPoPCheck;
if (checked.ok) {
  expectTypeOf(checked.proof).toEqualTypeOf<DPoPProof>();
  expectTypeOf(checked.proof.jkt).toEqualTypeOf<string>();
  expectTypeOf(checked.proof.alg).toEqualTypeOf<DPoPAlgorithm>();
  expectTypeOf(checked.record).toEqualTypeOf<(() => Promise<DPoPRefusal | undefined>) | undefined>();
} else {
  expectTypeOf(checked.refusal).toEqualTypeOf<DPoPRefusal>();
  // @ts-expect-error a refusal has no proof
  void checked.proof;
}
// A refusal is invalid_dpop_proof, or use_dpop_nonce with the nonce to use.
declare const refusal: DPoPRefusal;
expectTypeOf(refusal.error).toEqualTypeOf<'invalid_dpop_proof' | 'use_dpop_nonce'>();
if (refusal.error === 'use_dpop_nonce') expectTypeOf(refusal.nonce).toEqualTypeOf<string>();
// @ts-expect-error use_dpop_nonce names its nonce
const noNonce: DPoPRefusal = { error: 'use_dpop_nonce', description: 'A DPoP nonce is required' };
void noNonce;
// @ts-expect-error a request names the proof (undefined when the request has none)
void proofs({ method: 'GET', url: 'https://api.example/' });
// @ts-expect-error nonces need their shared secret
dpopNonces({ step: 300 });

// A reader's DPoP: a mode, required or allowed, and factories of TRPCErrors.
expectTypeOf<ReaderDPoPOptions['mode']>().toEqualTypeOf<'required' | 'allowed'>();
interface User extends Principal {
  readonly scopes: readonly string[];
}
declare const verifyUser: TokenVerifier<User>;
oauth2PasswordBearer({ tokenUrl: 't', origin: 'https://api.example', verify: verifyUser, dpop: { mode: 'allowed' } });
oauth2PasswordBearer({ tokenUrl: 't', origin: 'https://api.example', verify: verifyUser, dpop: { mode: 'required', proofs, makeInvalidDPoPProofError: (description, options) => invalidDPoPProofError(description, options) } });
// @ts-expect-error the mode is required
oauth2PasswordBearer({ tokenUrl: 't', origin: 'https://api.example', verify: verifyUser, dpop: { proofs } });
// @ts-expect-error a factory builds a TRPCError
oauth2PasswordBearer({ tokenUrl: 't', origin: 'https://api.example', verify: verifyUser, dpop: { mode: 'required', makeUseDPoPNonceError: () => new Error('nonce') } });

// The refusals' factories build TRPCErrors; a challenge is text.
expectTypeOf(invalidDPoPProofError('d', { algorithms: ['ES256'] })).toEqualTypeOf<TRPCError>();
expectTypeOf(useDPoPNonceError('n', { algorithms: ['ES256'] })).toEqualTypeOf<TRPCError>();
expectTypeOf(dpopNotAuthenticatedError('allowed', ['ES256'])).toEqualTypeOf<TRPCError>();
expectTypeOf(dpopChallenge({ algorithms: ['ES256'], error: 'invalid_token' })).toEqualTypeOf<string>();
// @ts-expect-error a challenge names the algorithms
dpopChallenge({ error: 'invalid_token' });
// @ts-expect-error the mode is 'required' or 'allowed'
dpopNotAuthenticatedError('optional', ['ES256']);

// The token endpoint's DPoP: a checker and the public origin (with the path a proxy strips), fixed
// or per request; each grant handler gets the accepted proof, or undefined.
expectTypeOf<TokenEndpointDPoPOptions>().toEqualTypeOf<{ proofs: DPoPProofVerifier; origin: string; pathPrefix?: string; required?: boolean }>();
const t = initTRPC.context<{ origin: string }>().create();
const authenticateClient = (credentials: ClientCredentials) => ({ id: credentials.clientId });
tokenEndpoint(t.procedure, { authenticateClient, dpop: { proofs, origin: 'https://as.example', required: true } }).grant('client_credentials', ({ dpop }) => {
  expectTypeOf(dpop).toEqualTypeOf<DPoPProof | undefined>();
  return { access_token: 'a', token_type: dpop === undefined ? 'Bearer' : 'DPoP' };
});
tokenEndpoint(t.procedure, { authenticateClient, dpop: (ctx) => ({ proofs, origin: ctx.origin }) });
// @ts-expect-error the endpoint's public origin is required: a proof names the URL it was sent to
tokenEndpoint(t.procedure, { authenticateClient, dpop: { proofs } });
// @ts-expect-error the checker is required
tokenEndpoint(t.procedure, { authenticateClient, dpop: { origin: 'https://as.example' } });
// @ts-expect-error a function of ctx gives the options from the procedure's ctx
tokenEndpoint(t.procedure, { authenticateClient, dpop: (ctx: { host: string }) => ({ proofs, origin: ctx.host }) });
