import { initTRPC } from '@trpc/server';
import { oauth2PasswordBearer, type Principal } from '@trpc-oauth2/core';
import { accessTokenHash, dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { InProcessCase } from './cases.js';

/** The origin the DPoP reader checks proofs' `htu` under, with the path of the request on ctx. */
const ORIGIN = 'https://api.bench.example';
const TOKEN = 'bench-access-token';

// One key, one bound token, one proof made once: the pair measures the proof's check (signature,
// thumbprint, ath), not the signing. The replay store is a no-op so the same proof serves every call.
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwk = await exportJWK(publicKey);
const jkt = await calculateJwkThumbprint(jwk, 'sha256');
const PROOF = await new SignJWT({ htm: 'GET', htu: `${ORIGIN}/me`, iat: Math.floor(Date.now() / 1000), jti: 'bench', ath: await accessTokenHash(TOKEN) })
  .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
  .sign(privateKey);

/** The same principal for both sides, held by a verifier that answers at once (as a cache does). */
const principalOf = (bound: boolean): Principal => (bound ? { scopes: ['me'], cnf: { jkt } } : { scopes: ['me'] });
const verifier = (bound: boolean) => Object.assign(async () => principalOf(bound), { peek: () => principalOf(bound) });

/** The request each call is made for, as tRPC's Node adapter puts it on ctx: a new one per call, as each HTTP request is. */
interface BenchRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}
const t = initTRPC.context<{ req: BenchRequest }>().create();
const common = { tokenUrl: '/token', scopes: { me: 'Read me' }, origin: ORIGIN };
const bearerReader = oauth2PasswordBearer({ ...common, verify: verifier(false) });
const dpopReader = oauth2PasswordBearer({
  ...common,
  verify: verifier(true),
  // A proof an hour old stays acceptable, so that one proof serves the whole run.
  dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256'], maxAge: 3_600, replay: { use: () => true } }) },
});
const router = t.router({
  me: t.procedure.use(bearerReader.withScopes('me')).query(() => 'ok'),
});
const dpopRouter = t.router({
  me: t.procedure.use(dpopReader.withScopes('me')).query(() => 'ok'),
});
const BEARER_HEADERS = { authorization: `Bearer ${TOKEN}` };
const DPOP_HEADERS = { authorization: `DPoP ${TOKEN}`, dpop: PROOF };
// A proof is checked once per request object, so each call gets a request of its own (both sides alike).
const bearerCaller = t.createCallerFactory(router)(() => ({ req: { method: 'GET', url: '/me', headers: BEARER_HEADERS } }));
const dpopCaller = t.createCallerFactory(dpopRouter)(() => ({ req: { method: 'GET', url: '/me', headers: DPOP_HEADERS } }));

/**
 * The DPoP pair: a verified bearer call (principal cached) against the same call with a DPoP-bound
 * token and its proof, checked every call.
 *
 * @example
 * ```ts
 * inProcessCases().push(dpopCase());
 * ```
 */
export function dpopCase(): InProcessCase {
  return {
    id: 'dpop-vs-bearer',
    group: 'dpop',
    a: { label: "verified withScopes('me'), Bearer, cached principal", call: () => bearerCaller.me() },
    b: { label: "the same with DPoP: ES256 proof checked every call", call: () => dpopCaller.me() },
    note: 'the cost of one DPoP proof check (one more signature verification)',
  };
}
