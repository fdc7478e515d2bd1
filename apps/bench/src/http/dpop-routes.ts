import { oauth2PasswordBearer, type Principal } from '@trpc-oauth2/core';
import { accessTokenHash, dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

/**
 * The origin the HTTP DPoP route checks proofs' `htu` under, whatever address the server listens
 * on (as an application behind a proxy says its public origin).
 *
 * @example
 * ```ts
 * `${DPOP_BENCH_ORIGIN}/items-dpop`; // the htu of a proof for the REST face
 * ```
 */
export const DPOP_BENCH_ORIGIN = 'https://api.bench.example';

/** A bench token names the thumbprint it is bound to (`dpop-bench.<jkt>`), so the server needs no key shared with the load generator. */
const TOKEN_PREFIX = 'dpop-bench.';

/**
 * What the HTTP pair's two routes verify: at once (as a cache answers), a principal with both
 * scopes, bound to the key the token names for the DPoP route and unbound for the bearer one.
 */
const verifier = (bound: boolean) => {
  const principalOf = (token: string): Principal | undefined => {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    return bound ? { scopes: ['me', 'items'], cnf: { jkt: token.slice(TOKEN_PREFIX.length) } } : { scopes: ['me', 'items'] };
  };
  return Object.assign(async (token: string) => principalOf(token) ?? { scopes: [] }, { peek: principalOf });
};

const common = { tokenUrl: '/token', scopes: { me: 'Read me', items: 'Read items' }, origin: DPOP_BENCH_ORIGIN };

/**
 * The bearer side of the HTTP DPoP pair: a verified reader whose principal is known at once.
 *
 * @example
 * ```ts
 * t.procedure.use(peekBearer.withScopes('me', 'items'));
 * ```
 */
export const peekBearer = oauth2PasswordBearer({ ...common, verify: verifier(false) });

/**
 * The DPoP side: the same, with DPoP required and each request's proof checked (ES256 signature,
 * thumbprint, `ath`, `htm`, `htu`). A load generator repeats one request, so the replay store is
 * off and a proof stays acceptable for an hour: the pair measures the proof's check.
 *
 * @example
 * ```ts
 * t.procedure.use(dpopRequired.withScopes('me', 'items'));
 * ```
 */
export const dpopRequired = oauth2PasswordBearer({
  ...common,
  verify: verifier(true),
  dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256'], maxAge: 3_600, replay: { use: () => true } }) },
});

/**
 * The requests the load generator sends the pair: the token for both, and a proof of each face's
 * URL (tRPC's `/trpc/itemsDPoP`, REST's `/items-dpop`) by a key made when the bench starts.
 *
 * @example
 * ```ts
 * const { token, proofs } = await dpopBenchRequests();
 * headers.dpop = proofs['/items-dpop'];
 * ```
 */
export async function dpopBenchRequests(paths: readonly string[]): Promise<{ token: string; proofs: Record<string, string> }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  const token = `${TOKEN_PREFIX}${await calculateJwkThumbprint(jwk, 'sha256')}`;
  const ath = await accessTokenHash(token);
  const iat = Math.floor(Date.now() / 1000);
  const proofs: Record<string, string> = {};
  for (const path of paths) {
    proofs[path] = await new SignJWT({ htm: 'GET', htu: `${DPOP_BENCH_ORIGIN}${path}`, iat, jti: `bench-${path}`, ath })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(privateKey);
  }
  return { token, proofs };
}
