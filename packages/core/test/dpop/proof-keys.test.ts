import { describe, expect, it } from 'vitest';
import { MB, leftOutsideYoung } from '@trpc-oauth2/test-kit';
import { ProofKeys } from '../../src/dpop/proof.js';
import type { SignatureStep } from '../../src/jws/signature/step.js';

// A proof check finds its key among the prepared ones on every request; what it does there must
// die in the young generation. A Map used as an LRU (delete, then set, on every hit) did not: the
// Map's table lives in the old generation and each delete-and-set leaves it garbage there.

const jwk = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' };
// Preparing a key is not what is measured: the step answers at once.
const step = { prepare: () => ({ prepared: true }) } as unknown as SignatureStep;

describe('the prepared proof keys', () => {
  it('a hit leaves nothing outside the young generation (a Map used as an LRU does)', async () => {
    const keys = new ProofKeys(step);
    await keys.of(jwk, 'ES256');
    const control = new Map<string, unknown>();
    const entry = {};
    control.set('ES256.key', entry);
    const controlLeft = await leftOutsideYoung(() => {
      // The old code's key: the jwk's members sorted, as canonical JSON.
      const id = `ES256.${JSON.stringify(jwk, Object.keys(jwk).sort())}`;
      control.get(id);
      control.delete(id);
      control.set(id, entry);
    });
    const ours = await leftOutsideYoung(() => keys.of(jwk, 'ES256'));
    expect(controlLeft).toBeGreaterThan(MB);
    expect(ours).toBeLessThan(controlLeft / 5);
  });

  it('gives the prepared key, not a promise, once it is ready, and the same key for the same jwk and alg only', async () => {
    const keys = new ProofKeys(step);
    const first = keys.of(jwk, 'ES256');
    expect(first).toBeInstanceOf(Promise);
    const ready = await first;
    expect(keys.of({ ...jwk }, 'ES256')).toBe(ready);
    const otherAlg = keys.of(jwk, 'ES384');
    expect(otherAlg).toBeInstanceOf(Promise);
    expect(await otherAlg).not.toBe(ready);
  });

  it('forgets a key that does not prepare, so the next proof with it is refused again', async () => {
    let calls = 0;
    const failing = {
      prepare: () => {
        calls += 1;
        throw new TypeError('not a key for ES256');
      },
    } as unknown as SignatureStep;
    const keys = new ProofKeys(failing);
    await expect(keys.of(jwk, 'ES256')).rejects.toThrow(TypeError);
    await expect(keys.of(jwk, 'ES256')).rejects.toThrow(TypeError);
    expect(calls).toBe(2);
  });
});
