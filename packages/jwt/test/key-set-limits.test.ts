// The key set against a misbehaving or abused `jwks_uri`, each a real server on 127.0.0.1: an
// endless chunked answer is cancelled at the size limit, not buffered; an unusable key beside a
// good one is skipped; and tokens with forged random `kid`s cannot make it refetch faster than
// `minRefetchInterval`, while a rotated key's first token is still verified
// (docs/contract.md#verified-readers).
import { randomUUID, generateKeyPairSync, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOKEN_REFUSALS } from '../src/index.js';
import { outcomeOf, refusalOf } from './support/refusal.js';
import { rsaKeyWithExponentBits } from './support/wide-rsa-key.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const MiB = 1 << 20;
const claims = () => ({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'read', exp: Math.floor(Date.now() / 1000) + 3600 });

/** A JWKS endpoint on 127.0.0.1 answering with `handler`, counting requests; closed after each test. */
const servers: Server[] = [];
async function jwksServer(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  let served = 0;
  const server = createServer((req, res) => {
    served++;
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`, served: () => served };
}
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const ecKey = async (kid: string) => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const tokenWithHeader = (header: { alg: string; kid?: string }) => new SignJWT(claims()).setProtectedHeader(header).sign(privateKey);
  return { jwk, token: () => tokenWithHeader({ alg: 'ES256', kid }), tokenWithHeader };
};
/** A token no key signed, with a `kid` of its own: what anyone can send. */
const forged = (kid: string) => `${Buffer.from(JSON.stringify({ alg: 'ES256', kid })).toString('base64url')}.e30.AAAA`;

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  const verifierOf = (url: string, options: { minRefetchInterval?: number } = {}) =>
    jwtVerifier({ jwksUrl: url, algorithms: ['ES256', 'RS256'], issuer: ISSUER, audience: AUDIENCE, ...options });

  describe('an answer past the 1 MiB limit', () => {
    it('is cancelled once past it, never read whole: a chunked endless answer ends in 503 as any failing key set', async () => {
      const key = await ecKey('k1');
      let sent = 0;
      let stoppedEarly!: Promise<boolean>;
      const total = 64 * MiB;
      const { url } = await jwksServer((_req, res) => {
        // No content-length: chunked. Valid JSON all along (spaces), so only the size can refuse it.
        stoppedEarly = new Promise((resolve) => res.once('close', () => resolve(!res.writableFinished)));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"keys":[${JSON.stringify(key.jwk)}]`);
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (sent < total && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end('}');
        };
        pump();
      });
      expect(await outcomeOf(verifierOf(url)(await key.token()))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
      expect(await stoppedEarly).toBe(true); // the client closed the connection before the end
      expect(sent).toBeLessThan(16 * MiB); // the limit, and what the sockets' buffers held
    });

    it('is counted in bytes, not characters', async () => {
      const key = await ecKey('k1');
      // Under a million characters, over a mebibyte of UTF-8 (é is two bytes).
      const padding = 'é'.repeat(600_000);
      const { url } = await jwksServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.jwk], padding }));
      });
      expect(await outcomeOf(verifierOf(url)(await key.token()))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
    });

    it('under it, a chunked answer is read and verifies', async () => {
      const key = await ecKey('k1');
      const { url } = await jwksServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"keys":[${JSON.stringify(key.jwk)}]`);
        for (let i = 0; i < 15; i++) res.write(Buffer.alloc(64 * 1024, 0x20)); // 960 KiB
        res.end('}');
      });
      expect((await verifierOf(url)(await key.token())).subject).toBe('alice');
    });
  });

  it('skips a key it cannot use (RSA under 2048 bits) beside the one that signed, neither with a kid', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const good = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwkOf = (key: typeof good) => ({ ...key.publicKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig' });
    const { url } = await jwksServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys: [jwkOf(weak), jwkOf(good)] })));
    const input = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}`;
    const signedBy = (key: typeof good) => `${input}.${cryptoSign('sha256', Buffer.from(input), key.privateKey).toString('base64url')}`;
    const verify = verifierOf(url);
    expect((await verify(signedBy(good))).subject).toBe('alice');
    // Signed by the weak key: refused, alike on both steps (one candidate could answer, and did not verify).
    expect(await refusalOf(verify(signedBy(weak)))).toBe(TOKEN_REFUSALS.signature);
  });

  describe('a token without a kid, before a key set of many keys of its algorithm', () => {
    it('is checked with the first 16 only: a key further on needs its kid, and a forged token costs 16 checks at most', async () => {
      const keys = await Promise.all(Array.from({ length: 40 }, (_, i) => ecKey(`k${i}`)));
      const { url } = await jwksServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys: keys.map((key) => key.jwk) })));
      const verify = verifierOf(url);
      const withoutKid = (index: number) => keys[index]!.tokenWithHeader({ alg: 'ES256' });
      expect((await verify(await withoutKid(3))).subject).toBe('alice');
      expect((await verify(await withoutKid(15))).subject).toBe('alice');
      expect(await refusalOf(verify(await withoutKid(30)))).toBe(TOKEN_REFUSALS.unknownKey);
      expect((await verify(await keys[30]!.token())).subject).toBe('alice');
      expect(await refusalOf(verify(`${Buffer.from('{"alg":"ES256"}').toString('base64url')}.e30.AAAA`))).toBe(TOKEN_REFUSALS.unknownKey);
    });
  });

  // jose imports the keys a token matches one by one and passes over, unseen, those it cannot
  // import: a set of many such keys (points off the curve) was imported whole for every forged
  // token without a `kid`, the 16-candidate bound counting only the keys that imported.
  describe('a token without a kid, before a key set of many keys that cannot be imported', () => {
    it('imports them once per fetched set, not once per token: forged tokens, one after another or together, cost no more', async () => {
      const key = await ecKey('k1');
      const broken = { ...key.jwk, kid: undefined, y: Buffer.alloc(32, 1).toString('base64url') };
      const keys = Array.from({ length: 100 }, () => broken);
      const { url, served } = await jwksServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys })));
      const verify = verifierOf(url);
      const forgedWithoutKid = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.AAAA`;
      const importKey = vi.spyOn(crypto.subtle, 'importKey');
      try {
        expect(await refusalOf(verify(forgedWithoutKid))).toBe(TOKEN_REFUSALS.invalid);
        const once = importKey.mock.calls.length;
        expect(once).toBeGreaterThanOrEqual(keys.length); // each was tried, once
        for (let i = 0; i < 5; i++) expect(await refusalOf(verify(forgedWithoutKid))).toBe(TOKEN_REFUSALS.invalid);
        const together = await Promise.all(Array.from({ length: 5 }, () => refusalOf(verify(forgedWithoutKid))));
        expect(together).toEqual(Array.from({ length: 5 }, () => TOKEN_REFUSALS.invalid));
        expect(importKey.mock.calls.length).toBe(once);
        expect(served()).toBe(1);
      } finally {
        importKey.mockRestore();
      }
    });
  });

  // A key set's RSA key is checked at a cost of its exponent's size: a 3072-bit exponent makes
  // one check cost some hundred checks with 65537, the exponent every issuer uses. A set (a
  // tenant's, in an API that trusts several) publishing such keys must not turn every forged
  // token into a hundred checks' work, sixteen times over for a token without a `kid`.
  describe('an RSA key of the set whose public exponent is over 64 bits', () => {
    it('verifies nothing: its tokens are refused, and beside a usable key without a kid it is skipped', async () => {
      const wide = rsaKeyWithExponentBits(128);
      const usual = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const jwkOf = (publicKey: KeyObject, kid?: string) => ({ ...publicKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig', ...(kid ? { kid } : {}) });
      const input = (header: object) => `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}`;
      const signed = (header: object, privateKey: KeyObject) => `${input(header)}.${cryptoSign('sha256', Buffer.from(input(header)), privateKey).toString('base64url')}`;
      // The key itself is sound: node:crypto verifies what it signed.
      const own = signed({ alg: 'RS256' }, wide.privateKey);
      const cut = own.lastIndexOf('.');
      expect(cryptoVerify('sha256', Buffer.from(own.slice(0, cut)), wide.publicKey, Buffer.from(own.slice(cut + 1), 'base64url'))).toBe(true);

      const withKid = await jwksServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys: [jwkOf(wide.publicKey, 'wide')] })));
      const outcome = await outcomeOf(verifierOf(withKid.url)(signed({ alg: 'RS256', kid: 'wide' }, wide.privateKey)));
      expect(outcome).toMatchObject({ kind: 'refused', description: TOKEN_REFUSALS.invalid });

      const withoutKid = await jwksServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys: [jwkOf(wide.publicKey), jwkOf(usual.publicKey)] })));
      const verify = verifierOf(withoutKid.url);
      expect((await verify(signed({ alg: 'RS256' }, usual.privateKey))).subject).toBe('alice');
      expect(await refusalOf(verify(signed({ alg: 'RS256' }, wide.privateKey)))).toBe(TOKEN_REFUSALS.signature);
    });
  });

  // The set answered, so it is not unavailable: what it offers for the token's `kid` cannot verify
  // the token, which is refused (401), as jose's own look-up leaves such a token without a key.
  // Above all, a private key the set publishes by mistake verifies nothing: anyone who read the
  // set could sign with it.
  describe("a key the set publishes for the token's kid that cannot verify it", () => {
    it.each<[string, (jwk: JWK, privateJwk: JWK) => JWK]>([
      ['the private key itself (with `d`)', (_jwk, privateJwk) => privateJwk],
      ['a key for encryption (`use: enc`)', (jwk) => ({ ...jwk, use: 'enc' })],
      ['a key whose `key_ops` lack `verify`', (jwk) => ({ ...jwk, key_ops: ['sign'] })],
      ['a key for another algorithm (`alg: ES384`)', (jwk) => ({ ...jwk, alg: 'ES384' })],
      ['a key on another curve', (jwk) => ({ ...jwk, crv: 'P-384' })],
      ['a point that is not on the curve', (jwk) => ({ ...jwk, x: Buffer.alloc(32, 1).toString('base64url') })],
      ['a key of another type', (jwk) => ({ kty: 'oct', k: Buffer.alloc(32, 7).toString('base64url'), kid: jwk.kid, alg: 'ES256' })],
      ['a key with no material', (jwk) => ({ kty: 'EC', crv: 'P-256', kid: jwk.kid, alg: 'ES256' })],
    ])('%s: the token is refused with 401', async (_name, publish) => {
      const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
      const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
      const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
      const { url } = await jwksServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publish(jwk, privateJwk)] })));
      const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
      const outcome = await outcomeOf(verifierOf(url)(token));
      expect(outcome.kind).toBe('refused');
      expect(Object.values(TOKEN_REFUSALS)).toContain((outcome as { description: string }).description);
    });
  });

  // RFC 7517 §4.3: `key_ops` list every operation the key is for; a key whose list names
  // `verify` among others (a key pair's, a key vault's) verifies, as it does given as `key`.
  describe("a key of the set whose key_ops name verify among others", () => {
    it.each([
      ["a key pair's", ['sign', 'verify']],
      ["a key vault's, every operation", ['encrypt', 'decrypt', 'sign', 'verify', 'wrapKey', 'unwrapKey']],
    ])('verifies its tokens (%s)', async (_name, keyOps) => {
      const key = await ecKey('k1');
      const { url } = await jwksServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [{ ...key.jwk, key_ops: keyOps }] })));
      expect((await verifierOf(url)(await key.token())).subject).toBe('alice');
      expect((await verifierOf(url)(await key.tokenWithHeader({ alg: 'ES256' }))).subject).toBe('alice');
    });
  });

  // RFC 7517 §8.5 registers application/jwk-set+json; sets are served as application/json, and
  // as whatever a static host says (text/plain, application/octet-stream). The body decides: a
  // JSON object whose `keys` is an array of objects verifies, under any type; anything else (a
  // proxy's HTML page, JSON of another shape) is no key set, and the verification answers 503.
  describe("the answer's Content-Type", () => {
    it.each(['application/jwk-set+json', 'application/json; charset=utf-8', 'text/plain', 'application/octet-stream', undefined])(
      'a key set served as %s verifies',
      async (type) => {
        const key = await ecKey('k1');
        const { url } = await jwksServer((_req, res) => res.writeHead(200, type === undefined ? {} : { 'content-type': type }).end(JSON.stringify({ keys: [key.jwk] })));
        expect((await verifierOf(url)(await key.token())).subject).toBe('alice');
      },
    );

    it.each([
      ['an HTML page', 'text/html', '<html><body>Sign in to the network</body></html>'],
      ['JSON without keys', 'application/json', '{"error":"not found"}'],
      ['keys that are not an array of objects', 'application/jwk-set+json', '{"keys":"k1"}'],
    ])('%s is no key set: 503', async (_name, type, body) => {
      const key = await ecKey('k1');
      const { url } = await jwksServer((_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
      expect(await outcomeOf(verifierOf(url)(await key.token()))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
    });
  });

  describe('a kid that is not a string', () => {
    it('is refused as invalid, whatever was looked up before', async () => {
      const key = await ecKey('k1');
      const { url } = await jwksServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys: [key.jwk] })));
      const verify = verifierOf(url);
      expect((await verify(await key.tokenWithHeader({ alg: 'ES256' }))).subject).toBe('alice');
      for (const kid of [123, ['k1'], { k: 1 }, true, null]) {
        expect(await refusalOf(verify(await key.tokenWithHeader({ alg: 'ES256', kid: kid as never })))).toBe(TOKEN_REFUSALS.invalid);
      }
    });
  });

  describe('tokens with forged random kids', () => {
    it('make at most one refetch per minRefetchInterval (default 1 s), and a rotated key still verifies', async () => {
      const first = await ecKey('k1');
      const second = await ecKey('k2');
      let published = [first.jwk];
      const jwks = await jwksServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys: published })));
      const verify = verifierOf(jwks.url);
      expect((await verify(await first.token())).subject).toBe('alice');
      const start = jwks.served();

      // 100 forged tokens, each with a kid never seen, sent over 100 ms.
      const flood = Array.from({ length: 100 }, (_, i) =>
        new Promise((resolve) => setTimeout(resolve, i)).then(() => refusalOf(verify(forged(randomUUID())))),
      );
      // Each waits for the next refetch rather than failing, then is refused as unknown.
      expect(new Set(await Promise.all(flood))).toEqual(new Set([TOKEN_REFUSALS.unknownKey]));
      expect(jwks.served() - start).toBeLessThanOrEqual(2);

      published = [second.jwk, first.jwk]; // the authorization server rotates
      const rotatedAt = Date.now();
      expect((await verify(await second.token())).subject).toBe('alice');
      expect(Date.now() - rotatedAt).toBeLessThan(1_000 + 2_000); // at most the interval, with room for a loaded machine
      expect(jwks.served() - start).toBeLessThanOrEqual(3);
    });

    it('refetch at once for a new kid when none was looked for within minRefetchInterval', async () => {
      const first = await ecKey('k1');
      const second = await ecKey('k2');
      let published = [first.jwk];
      const jwks = await jwksServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys: published })));
      const verify = verifierOf(jwks.url, { minRefetchInterval: 60_000 });
      await verify(await first.token());
      published = [second.jwk, first.jwk];
      const rotatedAt = Date.now();
      expect((await verify(await second.token())).subject).toBe('alice'); // the first refetch: no wait
      expect(Date.now() - rotatedAt).toBeLessThan(2_000);
      expect(jwks.served()).toBe(2);
    });
  });
});
