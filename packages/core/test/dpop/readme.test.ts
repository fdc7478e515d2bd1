// The root README's DPoP example, compiled and served (docs/contract.md#dpop): a bound token with
// its proof gets in; the same token as Bearer, or without a proof, does not.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { calculateJwkThumbprint } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closing, serveKeySet, servingOnLoopback, type LoopbackKeySet } from '@trpc-oauth2/test-kit';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';

const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('../readme/dpop.ts', import.meta.url), 'utf8');

describe('the README DPoP example', () => {
  it('is this tested file, word for word (but for the import paths)', () => {
    expect(readme).toContain('```ts\n' + example.replace("'../../src/index.js'", "'@trpc-oauth2/core'").replace("'../../src/dpop/index.js'", "'@trpc-oauth2/core/dpop'") + '```');
  });

  describe('works as it says', () => {
    let base: string;
    let client: ProofKey;
    let keySet: LoopbackKeySet;
    let server: Server;
    const token = async () => keySet.token({ scope: 'me', cnf: { jkt: await calculateJwkThumbprint(client.publicJwk, 'sha256') } });

    beforeAll(async () => {
      client = await proofKey();
      keySet = await serveKeySet();
      ({ server } = await import('../readme/dpop.js'));
      base = await servingOnLoopback(server);
    });
    afterAll(async () => {
      await Promise.all([server && closing(server), keySet?.close()]);
    });

    it('runs a call with a bound token and its proof, refuses it as Bearer or without a proof', async () => {
      const access = await token();
      const proof = await signProof(client, { method: 'GET', url: 'https://api.example/me', accessToken: access });
      const ok = await fetch(`${base}/me`, { headers: { authorization: `DPoP ${access}`, dpop: proof } });
      expect([ok.status, ok.status === 200 ? '' : await ok.clone().text()]).toEqual([200, '']);
      expect(await ok.json()).toMatchObject({ result: { data: { subject: 'alice' } } });
      const asBearer = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${access}` } });
      expect([asBearer.status, asBearer.headers.get('www-authenticate')]).toEqual([401, 'DPoP algs="ES256 EdDSA"']);
      const noProof = await fetch(`${base}/me`, { headers: { authorization: `DPoP ${access}` } });
      expect(noProof.status).toBe(401);
      expect(noProof.headers.get('www-authenticate')).toContain('error="invalid_dpop_proof"');
    });
  });
});
