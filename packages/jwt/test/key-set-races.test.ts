// The key set against tokens that arrive while a fetch is on the wire, and against forged `kid`s
// of any length, with a real JWKS server on 127.0.0.1 that answers with what it published when
// it was asked (docs/contract.md#verified-readers).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { heapInUse, MB } from '@trpc-oauth2/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_REFUSALS, type JwtJwksOptions } from '../src/index.js';
import { outcomeOf, refusalOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}
const signingKey = async (kid: string): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
};
/** A token signed by `key`, naming `kid` (the key's own unless told; none for `null`). */
const tokenOf = (key: SigningKey, kid: string | null = key.kid) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'read', exp: now + 3600 })
    .setProtectedHeader(kid === null ? { alg: 'ES256' } : { alg: 'ES256', kid })
    .sign(key.privateKey);
};
/** A token no key signed, naming `kid`: what anyone can send. */
const forged = (kid: string) => `${Buffer.from(JSON.stringify({ alg: 'ES256', kid })).toString('base64url')}.e30.AAAA`;

/**
 * The authorization server's key set: it answers `delay` ms after a request with what it
 * published when the request came in (as a server reading its keys, then sending them, does).
 */
let server: Server;
let url: string;
let published: SigningKey[] = [];
let delay = 0;
let served = 0;
beforeAll(async () => {
  server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    served++;
    const snapshot = JSON.stringify({ keys: published.map((key) => key.jwk) });
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(snapshot), delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// Kept alive to the end of the file, so that what a verifier holds is never released while a
// later test measures the heap.
const kept: unknown[] = [];

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  const verifierOf = (options: Partial<JwtJwksOptions> = {}) =>
    jwtVerifier({ jwksUrl: url, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE, ...options });

  describe('a kid past 256 characters', () => {
    it('refuses the token as invalid before the key set is asked; 256 characters is a kid like any other', async () => {
      delay = 0;
      const long = await signingKey('k'.repeat(256));
      const first = await signingKey('k1');
      published = [first, long];
      const verify = verifierOf({ minRefetchInterval: 0 });
      expect((await verify(await tokenOf(first))).subject).toBe('alice');
      const start = served;
      expect((await verify(await tokenOf(long))).subject).toBe('alice');
      // Signed by a key the set holds, yet its kid is one character too long: refused as invalid, no fetch.
      expect(await refusalOf(verify(await tokenOf(long, `${long.kid}x`)))).toBe(TOKEN_REFUSALS.invalid);
      expect(await refusalOf(verify(forged('x'.repeat(257))))).toBe(TOKEN_REFUSALS.invalid);
      expect(await refusalOf(verify(forged('x'.repeat(900_000))))).toBe(TOKEN_REFUSALS.invalid);
      // A kid with a character outside one byte counts in UTF-16 code units, as JavaScript does.
      expect(await refusalOf(verify(forged('é'.repeat(257))))).toBe(TOKEN_REFUSALS.invalid);
      expect(served - start).toBe(0);
      // And whatever the key: a key given as `key` refuses such a token alike.
      const fixed = jwtVerifier({ key: long.publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE });
      expect((await fixed(await tokenOf(long))).subject).toBe('alice');
      expect(await refusalOf(fixed(await tokenOf(long, `${long.kid}x`)))).toBe(TOKEN_REFUSALS.invalid);
    });

    // Each unknown kid is remembered for its cooldown (1024 at most): unbounded, 100 unsigned tokens
    // with a kid of 900 000 characters (under the size past which Node decodes to an off-heap
    // string) held some 200 MiB for as long as the verifier lived.
    it('keeps nothing of forged tokens with long kids, all arriving together, while the verifier lives', async () => {
      delay = 0;
      const known = await signingKey('k1');
      published = [known];
      const verify = verifierOf({ minRefetchInterval: 0, timeoutDuration: 1_000 });
      expect((await verify(await tokenOf(known))).subject).toBe('alice');
      const forgedOf = (i: number, length: number) => forged(`${i}-`.padEnd(length, 'x'));
      for (let i = 0; i < 4; i++) await outcomeOf(verify(forgedOf(-i - 1, 1024))); // what the first calls compile is not measured
      const before = heapInUse();
      const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => outcomeOf(verify(forgedOf(i, 900_000)))));
      expect(outcomes.every((outcome) => outcome.kind === 'refused')).toBe(true);
      expect((await verify(await tokenOf(known))).subject).toBe('alice'); // the verifier is still in use
      const retained = (heapInUse() - before) / MB;
      kept.push(verify);
      // 100 kids of 900 000 characters are 86 MiB as one-byte strings (kept whole, the heap grew by
      // 89 MiB on the WebCrypto step and 201 MiB on node:crypto); refused, what is left is noise
      // (the full collections measure within some 20 MiB, up or down, on a shared machine).
      expect(retained).toBeLessThan(40);
    });
  });

  describe('a token whose kid is published while a fetch sent before it is on the wire', () => {
    // The fetch it joins answers with the set as it was before the key: the kid is looked for
    // once more, in a fetch sent after the token arrived, not refused for cooldownDuration.
    it('is verified, and so is the next token of its key', async () => {
      delay = 300;
      const first = await signingKey('k1');
      const second = await signingKey('k2');
      published = [first];
      const verify = verifierOf({ minRefetchInterval: 0 });
      expect((await verify(await tokenOf(first))).subject).toBe('alice');
      const start = served;
      const stranger = refusalOf(verify(await tokenOf(first, 'never-published'))); // sends a fetch
      await sleep(50); // on the wire: the server publishes k2 and issues its first token
      published = [first, second];
      const firstOfSecond = outcomeOf(verify(await tokenOf(second)));
      expect(await stranger).toBe(TOKEN_REFUSALS.unknownKey);
      expect((await firstOfSecond).kind).toBe('accepted');
      expect((await verify(await tokenOf(second))).subject).toBe('alice');
      expect(served - start).toBe(2); // the stranger's fetch, then one sent after k2's token arrived
    });

    it('is verified without a kid too', async () => {
      delay = 300;
      const first = await signingKey('k1');
      const second = await signingKey('k2');
      published = [first];
      const verify = verifierOf({ minRefetchInterval: 0 });
      expect((await verify(await tokenOf(first, null))).subject).toBe('alice');
      const stranger = refusalOf(verify(await tokenOf(first, 'never-published'))); // sends a fetch
      await sleep(50);
      published = [first, second];
      const firstOfSecond = outcomeOf(verify(await tokenOf(second, null)));
      expect(await stranger).toBe(TOKEN_REFUSALS.unknownKey);
      expect((await firstOfSecond).kind).toBe('accepted');
      expect((await verify(await tokenOf(second, null))).subject).toBe('alice');
    });

    it('waits for the next fetch minRefetchInterval after the last, which forged kids arriving meanwhile share: one fetch more, whatever their number', async () => {
      delay = 200;
      const first = await signingKey('k1');
      const second = await signingKey('k2');
      published = [first];
      const verify = verifierOf({ minRefetchInterval: 1_000 });
      expect((await verify(await tokenOf(first))).subject).toBe('alice');
      const start = served;
      const sentAt = Date.now();
      const stranger = refusalOf(verify(forged(randomUUID()))); // sends a fetch at once (the first for an unknown kid)
      await sleep(50);
      published = [first, second];
      const firstOfSecond = outcomeOf(verify(await tokenOf(second)));
      // 100 forged tokens with new kids, over 100 ms, while the fetch is on the wire and after it answered.
      const flood = Array.from({ length: 100 }, (_, i) => sleep(i * 3).then(() => refusalOf(verify(forged(randomUUID())))));
      expect(new Set(await Promise.all([stranger, ...flood]))).toEqual(new Set([TOKEN_REFUSALS.unknownKey]));
      expect((await firstOfSecond).kind).toBe('accepted');
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1_000); // the second fetch waited for the interval
      expect(served - start).toBe(2);
      // Each kid was looked for in a set sent after it arrived: none makes the set fetch again.
      expect((await verify(await tokenOf(second))).subject).toBe('alice');
      expect(served - start).toBe(2);
    });
  });
});
