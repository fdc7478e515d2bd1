/**
 * The table of docs/contract.md#dpop: what a reader that accepts DPoP answers to each way a
 * request can present a token and a proof, the same on every face. A face's test signs the
 * proofs (this kit depends on no signing library) for the URL the client used on that face.
 */

/** The three readers a face serves: DPoP allowed beside Bearer, DPoP required, and required with server nonces. */
export type DPoPServer = 'allowed' | 'required' | 'nonces';

/**
 * How a row's proof differs from a good one: signed by another key, for another method or URL
 * (`below`: the URL under the face's base path, as a handler routes it, not as the client sent
 * it), for another token (`ath`), at another time, or without the server's nonce.
 */
export interface ProofChange {
  otherKey?: boolean;
  method?: string;
  below?: boolean;
  ath?: string;
  /** Seconds added to now. */
  iatOffset?: number;
  /** Leave the nonce out (rows on the `nonces` server carry the current one otherwise). */
  noNonce?: boolean;
}

export interface DPoPCase {
  name: string;
  server: DPoPServer;
  /** The `Authorization` value; `undefined`: none. Tokens: `bound` (to the face's key), `plain` (unbound), anything else is refused. */
  authorization: string | undefined;
  /** The proof sent with it: `undefined`, none; `{}` a good one. */
  proof: ProofChange | undefined;
  status: 200 | 401;
  /** The `WWW-Authenticate` expected; `ALGS` stands for the `algs` parameter of the face's readers. */
  challenge: string | null;
  /** A `DPoP-Nonce` is sent with the answer. */
  nonce?: boolean;
}

const refused = (description: string) => `DPoP error="invalid_dpop_proof", error_description="${description}", ALGS`;
const invalidToken = (description: string) => `DPoP error="invalid_token", error_description="${description}", ALGS`;
const BOUND_AS_BEARER = 'The access token is DPoP-bound: send it with the DPoP scheme and a proof';

export const DPOP_TABLE: readonly DPoPCase[] = [
  { name: 'a bound token with its proof', server: 'allowed', authorization: 'DPoP bound', proof: {}, status: 200, challenge: null },
  { name: 'the scheme in lower case', server: 'allowed', authorization: 'dpop bound', proof: {}, status: 200, challenge: null },
  { name: 'an unbound bearer token where DPoP is allowed', server: 'allowed', authorization: 'Bearer plain', proof: undefined, status: 200, challenge: null },
  { name: 'no credentials where DPoP is allowed', server: 'allowed', authorization: undefined, proof: undefined, status: 401, challenge: 'Bearer, DPoP ALGS' },
  { name: 'no credentials where DPoP is required', server: 'required', authorization: undefined, proof: undefined, status: 401, challenge: 'DPoP ALGS' },
  { name: 'an unbound bearer token where DPoP is required', server: 'required', authorization: 'Bearer plain', proof: undefined, status: 401, challenge: 'DPoP ALGS' },
  { name: 'a bound token with its proof where DPoP is required', server: 'required', authorization: 'DPoP bound', proof: {}, status: 200, challenge: null },
  { name: 'the bound token as Bearer', server: 'allowed', authorization: 'Bearer bound', proof: undefined, status: 401, challenge: invalidToken(BOUND_AS_BEARER) },
  { name: 'the bound token as Bearer with a proof', server: 'allowed', authorization: 'Bearer bound', proof: {}, status: 401, challenge: invalidToken(BOUND_AS_BEARER) },
  { name: 'no proof', server: 'allowed', authorization: 'DPoP bound', proof: undefined, status: 401, challenge: refused('A DPoP proof is required') },
  {
    name: "another key's proof",
    server: 'allowed',
    authorization: 'DPoP bound',
    proof: { otherKey: true },
    status: 401,
    challenge: refused('The DPoP proof key is not the key the access token is bound to'),
  },
  { name: 'a wrong htm', server: 'allowed', authorization: 'DPoP bound', proof: { method: 'DELETE' }, status: 401, challenge: refused('The DPoP proof htm does not match the request method') },
  {
    name: 'an htu of the URL below the base path (what the handler routes, not what the client used)',
    server: 'allowed',
    authorization: 'DPoP bound',
    proof: { below: true },
    status: 401,
    challenge: refused('The DPoP proof htu does not match the request URL'),
  },
  { name: 'a wrong ath', server: 'allowed', authorization: 'DPoP bound', proof: { ath: 'another-token' }, status: 401, challenge: refused('The DPoP proof ath does not match the access token') },
  { name: 'a stale iat', server: 'allowed', authorization: 'DPoP bound', proof: { iatOffset: -120 }, status: 401, challenge: refused('The DPoP proof is too old') },
  { name: 'a future iat', server: 'allowed', authorization: 'DPoP bound', proof: { iatOffset: 120 }, status: 401, challenge: refused('The DPoP proof is issued in the future') },
  { name: 'an unbound token sent as DPoP', server: 'allowed', authorization: 'DPoP plain', proof: {}, status: 401, challenge: invalidToken('The access token is not DPoP-bound') },
  { name: 'a token the verifier refuses, sent as DPoP', server: 'allowed', authorization: 'DPoP forged', proof: {}, status: 401, challenge: invalidToken('The access token is invalid') },
  {
    name: 'a proof without the required nonce',
    server: 'nonces',
    authorization: 'DPoP bound',
    proof: { noNonce: true },
    status: 401,
    challenge: 'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", ALGS',
    nonce: true,
  },
  { name: 'a proof with the current nonce', server: 'nonces', authorization: 'DPoP bound', proof: {}, status: 200, challenge: null },
];
