import { initTRPC, type TRPCError } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import {
  oauth2AuthorizationCodeBearer,
  oauth2Bearer,
  oauth2PasswordBearer,
  type ClientCredentials,
  type OAuth2PasswordBearerOptions,
  type Principal,
  type SecurityReader,
  type TokenVerifier,
  type VerifyOptions,
} from '../../src/index.js';
import {
  DPOP_ALGORITHMS,
  dpopChallenge,
  dpopNonces,
  dpopNotAuthenticatedError,
  dpopCredentialInUrlError,
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
import type { ChallengeOptions } from '../../src/errors-entry.js';

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

// A reader given `dpop` needs `verify` and `origin`: without either it does not compile, as it
// throws when created (docs/contract.md#dpop); `dpop`'s type then names the missing option.
// @ts-expect-error dpop needs verify
oauth2PasswordBearer({ tokenUrl: 't', origin: 'https://api.example', dpop: { mode: 'allowed' } });
// @ts-expect-error dpop needs origin
oauth2PasswordBearer({ tokenUrl: 't', verify: verifyUser, dpop: { mode: 'allowed' } });
// @ts-expect-error dpop needs both
oauth2PasswordBearer({ tokenUrl: 't', dpop: { mode: 'required', proofs } });
// @ts-expect-error dpop needs verify
oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', origin: 'https://api.example', dpop: { mode: 'required', proofs } });
// @ts-expect-error dpop needs origin
oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', verify: verifyUser, dpop: { mode: 'required', proofs } });
const flows = { clientCredentials: { tokenUrl: 't', scopes: { svc: 'Service' } } };
// @ts-expect-error dpop needs verify
oauth2Bearer({ flows, origin: 'https://api.example', dpop: { mode: 'required', proofs } });
// @ts-expect-error dpop needs origin
oauth2Bearer({ flows, verify: verifyUser, dpop: { mode: 'required', proofs } });
oauth2PasswordBearer({
  tokenUrl: 't',
  // A verifier written inline, its parameters typed by the reader, is seen given: the one error is on `dpop`.
  verify: async (token, options) => ({ scopes: [token, options?.request.url ?? ''] }),
  // @ts-expect-error dpop needs origin
  dpop: { mode: 'allowed' },
});

// Given both, a DPoP reader infers what any reader does: its scopes, principal, autoError and the
// ctx its options read, whether the verifier is declared or written inline.
expectTypeOf(
  oauth2PasswordBearer({ tokenUrl: 't', scopes: { me: 'Read me', items: 'Read items' }, origin: 'https://api.example', verify: verifyUser, dpop: { mode: 'required', proofs } }),
).toEqualTypeOf<SecurityReader<'token', 'me' | 'items', true, User, false, object>>();
expectTypeOf(
  oauth2AuthorizationCodeBearer({
    authorizationUrl: 'a',
    tokenUrl: 't',
    scopes: { me: 'Read me' },
    autoError: false,
    origin: (ctx: { publicUrl: string }) => ctx.publicUrl,
    verify: async (token, options?: VerifyOptions<{ tenant: string }>) => ({ subject: `${options?.ctx.tenant}:${token}`, scopes: ['me'] }),
    dpop: { mode: 'allowed', proofs, makeInvalidDPoPProofError: (description, options) => invalidDPoPProofError(description, options) },
  }),
).toEqualTypeOf<SecurityReader<'token', 'me', false, { subject: string; scopes: string[] }, false, { publicUrl: string } & { tenant: string }>>();
expectTypeOf(oauth2Bearer({ flows, origin: 'https://api.example', verify: verifyUser, dpop: { mode: 'required', proofs } })).toEqualTypeOf<
  SecurityReader<'token', 'svc', true, User, false, object>
>();
// `dpop: undefined` is no DPoP, and needs neither.
expectTypeOf(oauth2PasswordBearer({ tokenUrl: 't', dpop: undefined })).toEqualTypeOf<SecurityReader<'token', never, true, never, false, object>>();
// The check makes no misspelt option known.
// @ts-expect-error `proof` is no option (the checker is `dpop.proofs`)
oauth2PasswordBearer({ tokenUrl: 't', origin: 'https://api.example', verify: verifyUser, dpop: { mode: 'allowed' }, proof: proofs });
// Options of the reader's declared type may leave any of the three out: whether they do is not
// known until the reader is created, which still throws when they do.
declare const declared: OAuth2PasswordBearerOptions<{ me: string }, true, User>;
expectTypeOf(oauth2PasswordBearer(declared)).toEqualTypeOf<SecurityReader<'token', 'me', true, User, false, object>>();

// The refusals' factories build TRPCErrors; a challenge is text.
expectTypeOf(invalidDPoPProofError('d', { algorithms: ['ES256'] })).toEqualTypeOf<TRPCError>();
expectTypeOf(useDPoPNonceError('n', { algorithms: ['ES256'] })).toEqualTypeOf<TRPCError>();
expectTypeOf(dpopNotAuthenticatedError('allowed', ['ES256'])).toEqualTypeOf<TRPCError>();
expectTypeOf(dpopChallenge({ algorithms: ['ES256'], error: 'invalid_token' })).toEqualTypeOf<string>();
// @ts-expect-error a challenge names the algorithms
dpopChallenge({ error: 'invalid_token' });
// @ts-expect-error the mode is 'required' or 'allowed'
dpopNotAuthenticatedError('optional', ['ES256']);
// The scopes a request needs, in both schemes' challenges, as bearerNotAuthenticatedError names them.
expectTypeOf(dpopNotAuthenticatedError('allowed', ['ES256'], { scope: ['me'], resourceMetadata: 'https://api.example/.well-known/oauth-protected-resource' })).toEqualTypeOf<TRPCError>();
expectTypeOf(dpopNotAuthenticatedError).parameter(2).toEqualTypeOf<(ChallengeOptions & { readonly scope?: readonly string[] | undefined }) | undefined>();
// @ts-expect-error the scopes are a list
dpopNotAuthenticatedError('allowed', ['ES256'], { scope: 'me' });
expectTypeOf(dpopCredentialInUrlError('required', ['ES256'], { resourceMetadata: 'https://api.example/.well-known/oauth-protected-resource' })).toEqualTypeOf<TRPCError>();
// @ts-expect-error the mode is 'required' or 'allowed'
dpopCredentialInUrlError('optional', ['ES256']);

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
