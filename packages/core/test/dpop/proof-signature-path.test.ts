/**
 * The DPoP proof verifier checks signatures with core's signature step: `node:crypto` on Node,
 * WebCrypto on runtimes without it. Both must refuse the same hostile proofs with the same
 * refusal, including what jose's `jwtVerify` used to refuse for it (`crit`, a payload that is no
 * JSON object, `exp` and `nbf`, a key that does not fit the algorithm), and accept the same
 * valid ones.
 */
import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signature as nodeSignature } from '../../src/jws/signature/node.js';
import type { SignatureStep } from '../../src/jws/signature/step.js';
import { signature as webSignature } from '../../src/jws/signature/web.js';
import { dpopNonces, memoryReplayStore, type DPoPCheck } from '../../src/dpop/index.js';
import { dpopProofVerifier, dpopProofVerifierOn } from '../../src/dpop/proof.js';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';

const URL_ = 'https://api.example.com/trpc/me';
const TOKEN = 'an-access-token';
const NOW = 1_800_000_000;
const now = () => NOW;
const INVALID = 'The DPoP proof signature or key is invalid';
const RSA_REFUSED = 'The DPoP proof RSA key must have a 2048 to 4096-bit modulus and the exponent 65537';
const STEPS = [nodeSignature, webSignature] as SignatureStep[];
const node = nodeSignature as SignatureStep;

const refusedWith = (checked: DPoPCheck) => (checked.ok ? 'accepted' : checked.refusal.description);
const b64 = (data: string | Uint8Array) => Buffer.from(data).toString('base64url');

/**
 * A proof jose would not sign (a `crit` header, a payload that is no JSON object, an algorithm the
 * key does not fit): segments as given, signed by `signer` over them.
 */
function rawProof(header: Record<string, unknown> | string, payload: Record<string, unknown> | string | Uint8Array, signer: (input: Buffer) => Buffer): string {
  const headerSegment = typeof header === 'string' ? header : b64(JSON.stringify(header));
  const payloadSegment = typeof payload === 'string' ? payload : b64(payload instanceof Uint8Array ? payload : JSON.stringify(payload));
  const input = `${headerSegment}.${payloadSegment}`;
  return `${input}.${signer(Buffer.from(input, 'latin1')).toString('base64url')}`;
}

/**
 * The base64url of `json`, one character longer than whole groups: 4n+1 characters, a length no
 * bytes encode to, which Node's decoder still reads (dropping the last one) as `json`.
 */
function unencodable(json: string): string {
  const whole = json.padEnd(json.length + ((3 - (Buffer.byteLength(json) % 3)) % 3), ' ');
  return `${b64(whole)}A`;
}
const privateKeyOf = (key: ProofKey): KeyObject => createPrivateKey({ key: key.privateJwk as never, format: 'jwk' });
const es = (hash: string, key: KeyObject) => (input: Buffer) => sign(hash, input, { key, dsaEncoding: 'ieee-p1363' });
const claims = (extra: Record<string, unknown> = {}) => ({ htm: 'GET', htu: URL_, iat: NOW, jti: crypto.randomUUID(), ...extra });

let p256: ProofKey;
let other: ProofKey;
let ed25519: ProofKey;
let p384: ProofKey;
let rsa1024: { jwk: JWK; key: KeyObject };
beforeAll(async () => {
  [p256, other, ed25519, p384] = await Promise.all([proofKey('ES256'), proofKey('ES256'), proofKey('EdDSA'), proofKey('ES384')]);
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  rsa1024 = { jwk: await exportJWK(publicKey), key: privateKey };
});

/** Each hostile proof, and the refusal both steps must answer it with. */
const HOSTILE: [string, () => Promise<string> | string, string][] = [
  ['a signature by another key', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, signer: other }), INVALID],
  ['a signature with a byte changed', async () => {
    const proof = await signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    return `${proof.slice(0, -2)}${proof.endsWith('AA') ? 'BA' : 'AA'}`;
  }, INVALID],
  ['a signature of the wrong length', async () => `${(await signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW })).slice(0, -4)}`, INVALID],
  [
    'an ES256 header with an Ed25519 jwk (and its 64-byte Ed25519 signature)',
    () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: ed25519.publicJwk }, claims(), (input) => sign(null, input, privateKeyOf(ed25519))),
    INVALID,
  ],
  [
    'an EdDSA header with a P-256 jwk',
    () => rawProof({ typ: 'dpop+jwt', alg: 'EdDSA', jwk: p256.publicJwk }, claims(), es('sha256', privateKeyOf(p256))),
    INVALID,
  ],
  [
    'an ES384 header with a P-256 jwk (signed with SHA-384 on P-256)',
    () => rawProof({ typ: 'dpop+jwt', alg: 'ES384', jwk: p256.publicJwk }, claims(), es('sha384', privateKeyOf(p256))),
    INVALID,
  ],
  [
    'an ES256 header with a P-384 jwk',
    () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: p384.publicJwk }, claims(), es('sha256', privateKeyOf(p384))),
    INVALID,
  ],
  [
    'an RS256 proof by an RSA key under 2048 bits',
    () => rawProof({ typ: 'dpop+jwt', alg: 'RS256', jwk: rsa1024.jwk }, claims(), (input) => sign('sha256', input, rsa1024.key)),
    RSA_REFUSED,
  ],
  ['a symmetric jwk (kty oct, no k)', () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'oct' } }, claims(), es('sha256', privateKeyOf(p256))), INVALID],
  ['a jwk that is no key', () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256' } }, claims(), es('sha256', privateKeyOf(p256))), INVALID],
  [
    'a crit header (an extension not understood)',
    () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: p256.publicJwk, crit: ['exp'], exp: NOW + 60 }, claims(), es('sha256', privateKeyOf(p256))),
    INVALID,
  ],
  [
    'a crit header naming b64 (an unencoded payload is never a JWT)',
    () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: p256.publicJwk, crit: ['b64'], b64: true }, claims(), es('sha256', privateKeyOf(p256))),
    INVALID,
  ],
  ['a payload that is not JSON', () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: p256.publicJwk }, b64('htm=GET'), es('sha256', privateKeyOf(p256))), INVALID],
  ['a payload that is a JSON array', () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: p256.publicJwk }, b64('[1]'), es('sha256', privateKeyOf(p256))), INVALID],
  ['a payload that is JSON null', () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: p256.publicJwk }, b64('null'), es('sha256', privateKeyOf(p256))), INVALID],
  [
    'a payload that is not UTF-8',
    () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: p256.publicJwk }, new Uint8Array([...Buffer.from(`{"htm":"GET","htu":"${URL_}","iat":${NOW},"jti":"`), 0xff, ...Buffer.from('"}')]), es('sha256', privateKeyOf(p256))),
    INVALID,
  ],
  [
    'a payload segment of 4n+1 characters (no encoding of any bytes)',
    () => rawProof({ typ: 'dpop+jwt', alg: 'ES256', jwk: p256.publicJwk }, unencodable(JSON.stringify(claims())), es('sha256', privateKeyOf(p256))),
    INVALID,
  ],
  ['an exp in the past', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, claims: { exp: NOW - 1 } }), INVALID],
  ['an exp of now', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, claims: { exp: NOW } }), INVALID],
  ['an exp that is not a number', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, claims: { exp: String(NOW + 60) } }), INVALID],
  ['an nbf in the future', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, claims: { nbf: NOW + 1 } }), INVALID],
  ['an nbf that is not a number', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, claims: { nbf: 'now' } }), INVALID],
  ['an iat that is not a number', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, claims: { iat: String(NOW) } }), INVALID],
  ['no iat', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, claims: { iat: undefined } }), 'The DPoP proof has no iat'],
  [
    'a header segment of 4n+1 characters',
    () => rawProof(unencodable(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: p256.publicJwk })), claims(), es('sha256', privateKeyOf(p256))),
    'The DPoP proof header is not valid JSON',
  ],
  ['a header that is not UTF-8', () => `${b64(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))}.e30.c2ln`, 'The DPoP proof header is not valid JSON'],
  ['a header that is a JSON array', () => `${b64('[1]')}.e30.c2ln`, 'The DPoP proof header is not valid JSON'],
  ['another typ', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, header: { typ: 'JWT' } }), 'The DPoP proof type must be dpop+jwt'],
  ['alg none', () => rawProof({ typ: 'dpop+jwt', alg: 'none', jwk: p256.publicJwk }, claims(), () => Buffer.from('sig')), 'The DPoP proof algorithm is not accepted'],
  ['no jwk', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, header: { jwk: undefined } }), 'The DPoP proof header has no public jwk'],
  ['a private jwk', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, header: { jwk: p256.privateJwk } }), 'The DPoP proof jwk must be a public key'],
  ['another method', () => signProof(p256, { method: 'POST', url: URL_, accessToken: TOKEN, iat: NOW }), 'The DPoP proof htm does not match the request method'],
  ['another URL', () => signProof(p256, { method: 'GET', url: 'https://evil.example.com/trpc/me', accessToken: TOKEN, iat: NOW }), 'The DPoP proof htu does not match the request URL'],
  ['a stale iat', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW - 61 }), 'The DPoP proof is too old'],
  ['a future iat', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW + 11 }), 'The DPoP proof is issued in the future'],
  ['no jti', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, claims: { jti: undefined } }), 'The DPoP proof has no valid jti'],
  ['another token\'s ath', () => signProof(p256, { method: 'GET', url: URL_, accessToken: 'another', iat: NOW }), 'The DPoP proof ath does not match the access token'],
  ['a nonce that is not a string', () => signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, claims: { nonce: 1 } }), 'The DPoP proof nonce is not a string'],
];

describe.each(STEPS.map((step) => ({ name: step.name, step })))('DPoP proofs, signature checked by $name', ({ step }) => {
  it.each(HOSTILE)('refuses %s', async (_, build, reason) => {
    const proof = await build();
    expect(refusedWith(await dpopProofVerifierOn(step, { now })({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe(reason);
  });

  it.each(['ES256', 'ES384', 'ES512', 'PS256', 'RS256', 'EdDSA', 'Ed25519'])('accepts a valid %s proof, and names its key thumbprint', async (alg) => {
    const key = await proofKey(alg);
    const verify = dpopProofVerifierOn(step, { now });
    const checked = await verify({ method: 'GET', url: URL_, proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW }), accessToken: TOKEN });
    expect(checked.ok ? checked.proof : checked.refusal).toMatchObject({ alg, jkt: await calculateJwkThumbprint(key.publicJwk, 'sha256') });
  });

  it('accepts an exp still ahead and an nbf already past, as jose did', async () => {
    const proof = await signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, claims: { exp: NOW + 1, nbf: NOW } });
    expect(refusedWith(await dpopProofVerifierOn(step, { now })({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('accepted');
  });

  it('never uses a key prepared for one algorithm for another, whatever it prepared before', async () => {
    const verify = dpopProofVerifierOn(step, { now });
    const valid = await signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof: valid, accessToken: TOKEN }))).toBe('accepted');
    const es384 = rawProof({ typ: 'dpop+jwt', alg: 'ES384', jwk: p256.publicJwk }, claims(), es('sha384', privateKeyOf(p256)));
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof: es384 }))).toBe(INVALID);
    // The same key by another signer, after it was prepared: still checked against its own signature.
    const forged = await signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, signer: other });
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof: forged, accessToken: TOKEN }))).toBe(INVALID);
  });

  it('refuses a replay and asks for a nonce after the signature, as before', async () => {
    const nonces = dpopNonces({ secret: 'a-secret-of-at-least-thirty-two-bytes!!', now });
    const verify = dpopProofVerifierOn(step, { now, nonces, replay: memoryReplayStore({ now }) });
    const proof = await signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, nonce: await nonces.current() });
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('accepted');
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('The DPoP proof was already used');
    const without = await signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof: without, accessToken: TOKEN }))).toBe('A DPoP nonce is required');
  });

  it('refuses every proof when the clock gives no time', async () => {
    const proof = await signProof(p256, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    expect(refusedWith(await dpopProofVerifierOn(step, { now: () => Number.NaN })({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe(INVALID);
  });
});

/**
 * docs/contract.md#dpop, `jwk`: the client picks a proof's key, and an RSA check costs what its
 * modulus and exponent make it cost (a 3071-bit exponent: 60 ES256 checks). Only a 2048 to
 * 4096-bit modulus with e = 65537 is taken, and anything else is refused before the step
 * prepares the key or checks the signature.
 */
describe('the RSA keys a DPoP proof may name', () => {
  let rsa2048: { jwk: JWK; key: KeyObject };
  let rsa4096: { jwk: JWK; key: KeyObject };
  beforeAll(async () => {
    for (const bits of [2048, 4096]) {
      const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
      const pair = { jwk: await exportJWK(publicKey), key: privateKey };
      if (bits === 2048) rsa2048 = pair;
      else rsa4096 = pair;
    }
  });

  /** `step` with every prepare and verify counted. */
  const counted = (step: SignatureStep) => {
    const calls = { prepare: 0, verify: 0 };
    const wrapped: SignatureStep = {
      ...step,
      prepare: (key, alg) => (calls.prepare++, step.prepare(key, alg)),
      verify: (alg, key, jws) => (calls.verify++, step.verify(alg, key, jws)),
    };
    return { calls, wrapped };
  };
  /** A modulus of `bits` bits: a real key's, cut or grown (the signature is never checked). */
  const modulusOf = (bits: number): string => {
    const real = Buffer.from(rsa4096.jwk.n!, 'base64url');
    const bytes = Buffer.alloc(Math.ceil(bits / 8), 0xff);
    real.copy(bytes, 0, 0, Math.min(real.length, bytes.length));
    bytes[0] = 0xff >> (bytes.length * 8 - bits);
    return bytes.toString('base64url');
  };
  const bigExponent = () => {
    const e = Buffer.alloc(384, 0xff);
    e[0] = 0x7f;
    return e.toString('base64url');
  };
  const rsaProof = (jwk: JWK, key?: KeyObject) =>
    rawProof({ typ: 'dpop+jwt', alg: 'RS256', jwk }, claims(), (input) => (key === undefined ? Buffer.alloc(256, 0x11) : sign('sha256', input, key)));

  describe.each(STEPS.map((step) => ({ name: step.name, step })))('signature checked by $name', ({ step }) => {
    it.each([
      ['a 3071-bit public exponent (the 7.8 ms proof)', () => ({ kty: 'RSA', n: rsa2048.jwk.n, e: bigExponent() })],
      ['e = 3', () => ({ kty: 'RSA', n: rsa2048.jwk.n, e: 'Aw' })],
      ['e = 2^32 + 1', () => ({ kty: 'RSA', n: rsa2048.jwk.n, e: Buffer.from([1, 0, 0, 0, 1]).toString('base64url') })],
      ['65537 written with a leading zero byte', () => ({ kty: 'RSA', n: rsa2048.jwk.n, e: 'AAEAAQ' })],
      ['no e', () => ({ kty: 'RSA', n: rsa2048.jwk.n })],
      ['a 4097-bit modulus', () => ({ kty: 'RSA', n: modulusOf(4097), e: 'AQAB' })],
      ['a 16384-bit modulus', () => ({ kty: 'RSA', n: modulusOf(16384), e: 'AQAB' })],
      ['a 2047-bit modulus', () => ({ kty: 'RSA', n: modulusOf(2047), e: 'AQAB' })],
      ['a modulus that is not base64url', () => ({ kty: 'RSA', n: `${rsa2048.jwk.n}+`, e: 'AQAB' })],
      ['no modulus', () => ({ kty: 'RSA', e: 'AQAB' })],
    ] as [string, () => JWK][])('refuses %s before preparing the key or checking the signature', async (_, jwk) => {
      const { calls, wrapped } = counted(step);
      const checked = await dpopProofVerifierOn(wrapped, { now, algorithms: ['RS256', 'PS256'] })({ method: 'GET', url: URL_, proof: rsaProof(jwk()) });
      expect({ refusal: refusedWith(checked), calls }).toEqual({ refusal: RSA_REFUSED, calls: { prepare: 0, verify: 0 } });
    });

    it.each([
      ['2048', () => rsa2048],
      ['4096', () => rsa4096],
    ] as const)('accepts a %s-bit key with e = 65537', async (_, pair) => {
      const { jwk, key } = pair();
      expect(jwk.e).toBe('AQAB');
      expect(refusedWith(await dpopProofVerifierOn(step, { now })({ method: 'GET', url: URL_, proof: rsaProof(jwk, key) }))).toBe('accepted');
    });

    it('counts the modulus bits, not its bytes: a 2048-bit modulus with a leading zero byte is 2048 bits', async () => {
      const padded = { ...rsa2048.jwk, n: Buffer.concat([Buffer.alloc(1), Buffer.from(rsa2048.jwk.n!, 'base64url')]).toString('base64url') };
      const checked = await dpopProofVerifierOn(step, { now })({ method: 'GET', url: URL_, proof: rsaProof(padded, rsa2048.key) });
      expect(refusedWith(checked)).not.toBe(RSA_REFUSED);
    });
  });
});

describe('the signature step of dpopProofVerifier', () => {
  it('checks a proof synchronously on Node, with a key prepared for one algorithm only', async () => {
    const proof = await signProof(p256, { method: 'GET', url: URL_, iat: NOW });
    const prepared = node.prepare(p256.publicJwk, 'ES256');
    expect(prepared).not.toBeInstanceOf(Promise);
    const [header, payload, signature] = proof.split('.') as [string, string, string];
    expect(node.verify('ES256', prepared, { token: proof, protectedHeader: header, payload, signature })).toBe(true);
    expect(() => node.verify('ES384', prepared, { token: proof, protectedHeader: header, payload, signature })).toThrow(TypeError);
    expect((await dpopProofVerifier({ now })({ method: 'GET', url: URL_, proof })).ok).toBe(true);
  });
});
