/**
 * The invariant of docs/contract.md#dpop, over generated requests: a proof that fails any one check
 * of RFC 9449 §4.3 is never accepted, and the same proof without that one fault is.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { dpopNonces, dpopProofVerifier, memoryReplayStore } from '../../src/dpop/index.js';
import { proofKey, signProof, type ProofKey, type ProofParts } from '../support/dpop-proofs.js';

const NOW = 1_800_000_000;
const SECRET = 'the-nonce-secret-of-this-property-test';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** One fault, applied to an otherwise valid proof. */
const FAULTS = [
  'typ', 'no-typ', 'no-jwk', 'private-jwk', 'other-signer', 'htm', 'htm-case', 'htu-path', 'htu-host', 'htu-scheme', 'htu-port',
  'stale-iat', 'future-iat', 'no-iat', 'no-jti', 'unstorable-jti', 'no-ath', 'other-ath', 'no-nonce', 'forged-nonce', 'replayed', 'two-headers', 'tampered',
] as const;
type Fault = (typeof FAULTS)[number];

const segment = fc.stringMatching(/^[a-z0-9]{1,8}$/);
const request = fc.record({
  method: fc.constantFrom(...METHODS),
  host: fc.constantFrom('api.example.com', 'localhost:8443', '127.0.0.1:3000'),
  path: fc.array(segment, { minLength: 1, maxLength: 3 }),
  query: fc.option(fc.stringMatching(/^[a-z]=[a-z0-9]{0,5}$/), { nil: undefined }),
  token: fc.stringMatching(/^[\w.~-]{1,40}$/),
  age: fc.integer({ min: -10, max: 60 }),
  withNonces: fc.boolean(),
  fault: fc.constantFrom(...FAULTS),
  // What an unstorable jti holds: a control character, or half a surrogate pair.
  unstorable: fc.constantFrom('\u0000', '\u0001', '\n', '\u001f', '\u007f', '\u0085', '\u009f', '\ud800', '\udfff'),
});

let key: ProofKey;
let other: ProofKey;
beforeAll(async () => {
  key = await proofKey('ES256');
  other = await proofKey('ES256');
});

describe('a DPoP proof with one fault', () => {
  it('is never accepted, and the same proof without the fault is', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        // A nonce fault only exists where the server asks for nonces.
        const withNonces = r.withNonces || r.fault === 'no-nonce' || r.fault === 'forged-nonce';
        const now = () => NOW;
        const nonces = withNonces ? dpopNonces({ secret: SECRET, now }) : undefined;
        const verify = dpopProofVerifier({ now, replay: memoryReplayStore({ now }), ...(nonces ? { nonces } : {}) });
        const url = `https://${r.host}/${r.path.join('/')}`;
        const requestUrl = r.query === undefined ? url : `${url}?${r.query}`;
        const valid: ProofParts = {
          method: r.method,
          url,
          accessToken: r.token,
          iat: NOW - r.age,
          ...(nonces ? { nonce: await nonces.current() } : {}),
        };
        const call = (proof: string | undefined) => verify({ method: r.method, url: requestUrl, proof, accessToken: r.token });

        const control = await call(await signProof(key, valid));
        expect(control.ok).toBe(true);

        const faulty = await faultyProof(r.fault, valid, r);
        if (r.fault === 'replayed') {
          expect((await call(faulty)).ok).toBe(true);
          expect((await call(faulty)).ok).toBe(false);
        } else {
          expect((await call(faulty)).ok).toBe(false);
        }
      }),
      { numRuns: 150 },
    );
  });
});

async function faultyProof(fault: Fault, valid: ProofParts, r: { host: string; path: string[]; token: string; unstorable: string }): Promise<string> {
  const path = `/${r.path.join('/')}`;
  const sign = (change: Partial<ProofParts>) => signProof(key, { ...valid, ...change });
  switch (fault) {
    case 'typ': return sign({ header: { typ: 'jwt' } });
    case 'no-typ': return sign({ header: { typ: undefined } });
    case 'no-jwk': return sign({ header: { jwk: undefined } });
    case 'private-jwk': return sign({ header: { jwk: key.privateJwk } });
    case 'other-signer': return sign({ signer: other });
    case 'htm': return sign({ method: valid.method === 'GET' ? 'POST' : 'GET' });
    case 'htm-case': return sign({ method: valid.method.toLowerCase() });
    case 'htu-path': return sign({ url: `https://${r.host}${path}/x` });
    case 'htu-host': return sign({ url: `https://other.example.com${path}` });
    case 'htu-scheme': return sign({ url: `http://${r.host}${path}` });
    case 'htu-port': return sign({ url: `https://${r.host.split(':')[0]}:9${path}` });
    case 'stale-iat': return sign({ iat: NOW - 61 });
    case 'future-iat': return sign({ iat: NOW + 11 });
    case 'no-iat': return sign({ claims: { iat: undefined } });
    case 'no-jti': return sign({ claims: { jti: undefined } });
    case 'unstorable-jti': return sign({ jti: `${crypto.randomUUID()}${r.unstorable}` });
    case 'no-ath': return sign({ claims: { ath: undefined } });
    case 'other-ath': return sign({ accessToken: `${r.token}x` });
    case 'no-nonce': return sign({ claims: { nonce: undefined } });
    case 'forged-nonce': return sign({ nonce: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    case 'replayed': return sign({});
    case 'two-headers': return `${await sign({})}, ${await sign({})}`;
    case 'tampered': {
      const [header, , signature] = (await sign({})).split('.');
      const other = (await sign({ method: valid.method === 'GET' ? 'POST' : 'GET' })).split('.')[1];
      return `${header}.${other}.${signature}`;
    }
  }
}
