// The root README's DPoP example, compiled and served (docs/contract.md#dpop): a bound token with
// its proof gets in; the same token as Bearer, or without a proof, does not.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';

const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('../readme/dpop.ts', import.meta.url), 'utf8');

describe('the README DPoP example', () => {
  it('is this tested file, word for word (but for the import paths)', () => {
    expect(readme).toContain('```ts\n' + example.replace("'../../src/index.js'", "'@trpc-oauth2/core'").replace("'../../src/dpop/index.js'", "'@trpc-oauth2/core/dpop'") + '```');
  });

  describe('works as it says', () => {
    let issuer: string;
    let base: string;
    let signingKey: CryptoKey;
    let client: ProofKey;
    let keySet: Server;
    let server: Server;
    const token = async () =>
      new SignJWT({ scope: 'me', cnf: { jkt: await calculateJwkThumbprint(client.publicJwk, 'sha256') } })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(issuer)
        .setAudience('https://api.example')
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(signingKey);

    beforeAll(async () => {
      const pair = await generateKeyPair('ES256');
      signingKey = pair.privateKey;
      client = await proofKey();
      const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] });
      keySet = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
      await new Promise<void>((resolve) => keySet.listen(0, '127.0.0.1', resolve));
      issuer = `http://127.0.0.1:${(keySet.address() as AddressInfo).port}`;
      process.env.ISSUER = issuer;
      ({ server } = await import('../readme/dpop.js'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      for (const s of [server, keySet]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
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
