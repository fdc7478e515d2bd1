// jwtVerifier with a key in hand: one refusal per cause, each with its fixed description
// (docs/contract.md#reading-the-authorization-header).
import { constants, generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompactSign, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { heapInUse, MB } from '@trpc-oauth2/test-kit';
import { anyOf, getOAuth2Error, oauth2PasswordBearer } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import { TOKEN_REFUSALS } from '../src/index.js';
import { outcomeOf, refusalOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';
import { verifyOptions } from './support/verify-options.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const now = () => Math.floor(Date.now() / 1000);

let keys: Awaited<ReturnType<typeof generateKeyPair>>;
let otherKeys: Awaited<ReturnType<typeof generateKeyPair>>;
beforeAll(async () => {
  [keys, otherKeys] = await Promise.all([generateKeyPair('ES256'), generateKeyPair('ES256')]);
});

const claims = (overrides: JWTPayload = {}): JWTPayload => ({
  iss: ISSUER, aud: AUDIENCE, sub: 'alice', iat: now(), exp: now() + 60, scope: 'me items', ...overrides,
});
const sign = (payload: JWTPayload, header: Record<string, unknown> = {}, key = keys.privateKey) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...header }).sign(key);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** A compact JWS, ES256, over a header and a payload given as bytes (jose writes neither with a BOM). */
async function signedRaw(header: Uint8Array, payload: Uint8Array): Promise<string> {
  const input = `${Buffer.from(header).toString('base64url')}.${Buffer.from(payload).toString('base64url')}`;
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, keys.privateKey, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

// Parsed headers are kept by their text (jws.ts); the text is a slice of its token, and a slice
// keeps its whole parent alive. Unsigned tokens with new headers and a payload as large as a
// verifier reads must not stay in memory once refused. First in the file, while the cache is
// empty: it holds the sixty headers (64 at most).
it('keeps nothing of a refused token once it is answered, its header remembered or not', async () => {
  const verify = VERIFICATION_PATHS[0]!.jwtVerifier({ key: keys.publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE });
  const refuse = async (kid: string, payloadSize: number) => {
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid })).toString('base64url');
    // A payload of `payloadSize` code units, a new string each time (a repeat of one would be shared).
    const payload = `${'A'.repeat(payloadSize - kid.length)}${Buffer.from(kid).toString('base64url')}`.slice(0, payloadSize);
    expect(await refusalOf(verify(`${header}.${payload}.AAAA`))).toBe(TOKEN_REFUSALS.signature);
  };
  for (let i = 0; i < 4; i++) await refuse(`warm-up-${i}`, 1024); // what the first calls compile is not measured
  const before = heapInUse();
  const size = 63 * 1024; // as long as a verifier reads, with the header and signature (64 KiB)
  for (let i = 0; i < 60; i++) await refuse(`forged-${i}`, size);
  // Sixty payloads of 63 KiB each: 3.7 MiB if the remembered headers held their tokens.
  expect((heapInUse() - before) / MB).toBeLessThan(1.5);
});

// jws.ts MAX_TOKEN_LENGTH: a token's header is a client's JSON, parsed before the signature can
// say anything; a token from a WebSocket's connection params or a createCaller context has no
// HTTP header limit above it.
describe.each(VERIFICATION_PATHS)('a token over 64 KiB, $name', ({ jwtVerifier }) => {
  it('is refused as invalid before it is parsed; one just under it is read', async () => {
    const verify = jwtVerifier({ key: keys.publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE });
    // Nested arrays: what makes a header costly to parse (megabytes of them held the loop for seconds).
    const nested = Buffer.from(`{"alg":"ES256","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`).toString('base64url');
    const started = performance.now();
    expect(await refusalOf(verify(`${nested}.e30.AAAA`))).toBe(TOKEN_REFUSALS.invalid);
    expect(performance.now() - started).toBeLessThan(1_000); // not parsed: well under a millisecond, with room for a loaded machine
    // A signed token with a large claim, 64 KiB at most in all: accepted; one character more: refused.
    const base = await sign(claims({ padding: '' }));
    const padding = 'p'.repeat(Math.floor(((64 * 1024 - base.length) * 3) / 4) - 8);
    const large = await sign(claims({ padding }));
    expect(large.length).toBeLessThanOrEqual(64 * 1024);
    expect(large.length).toBeGreaterThan(63 * 1024);
    expect((await verify(large)).subject).toBe('alice');
    const over = await sign(claims({ padding: `${padding}${'p'.repeat(Math.ceil(((64 * 1024 - large.length) * 3) / 4) + 3)}` }));
    expect(over.length).toBeGreaterThan(64 * 1024);
    expect(await refusalOf(verify(over))).toBe(TOKEN_REFUSALS.invalid);
  });
});

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  const verifier = (options: Partial<Parameters<typeof jwtVerifier>[0]> = {}) =>
    jwtVerifier({ key: keys.publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE, ...options } as Parameters<typeof jwtVerifier>[0]);

  // An API that takes the tokens of two issuers (anyOf): a token of the second one, refused for
  // its audience, is answered with that refusal, not with the first one's (whose keys did not sign
  // it, and whose issuer it does not name), in either order (docs/contract.md#verified-readers).
  it("lets anyOf answer a token with the refusal of the issuer it names, not another issuer's", async () => {
    const t = initTRPC.context<{ headers: Record<string, string> }>().create();
    const own = oauth2PasswordBearer({ tokenUrl: '/token', schemeName: 'Own', verify: verifier() });
    const other = oauth2PasswordBearer({ tokenUrl: '/token', schemeName: 'Other', verify: verifier({ key: otherKeys.publicKey, issuer: 'https://other.example' }) });
    const router = t.router({
      ownFirst: t.procedure.use(anyOf(own, other)).query(() => 'accepted'),
      otherFirst: t.procedure.use(anyOf(other, own)).query(() => 'accepted'),
    });
    const answer = async (order: 'ownFirst' | 'otherFirst', token: string) =>
      t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } })[order]().then(
        (value) => value,
        (error: unknown) => getOAuth2Error(error)?.message,
      );
    const misdirected = await sign(claims({ iss: 'https://other.example', aud: 'https://elsewhere.example' }), {}, otherKeys.privateKey);
    expect(await answer('ownFirst', misdirected)).toBe(TOKEN_REFUSALS.audience);
    expect(await answer('otherFirst', misdirected)).toBe(TOKEN_REFUSALS.audience);
    // A token the first issuer names, signed by neither: the first issuer's refusal, as before.
    expect(await answer('ownFirst', await sign(claims(), {}, (await generateKeyPair('ES256')).privateKey))).toBe(TOKEN_REFUSALS.signature);
    expect(await answer('ownFirst', await sign(claims({ iss: 'https://other.example' }), {}, otherKeys.privateKey))).toBe('accepted');
  });

  describe('a valid token', () => {
    it('gives the subject, the scopes, the expiry and the payload', async () => {
      const payload = claims();
      expect(await verifier()(await sign(payload))).toEqual({ subject: 'alice', scopes: ['me', 'items'], expiresAt: payload.exp, claims: payload });
    });

    it('reads scp (an array, or a space-delimited string) when there is no scope', async () => {
      const verify = verifier();
      expect((await verify(await sign(claims({ scope: undefined, scp: ['me', 'items'] })))).scopes).toEqual(['me', 'items']);
      expect((await verify(await sign(claims({ scope: undefined, scp: 'me items' })))).scopes).toEqual(['me', 'items']);
      expect((await verify(await sign(claims({ scope: undefined })))).scopes).toEqual([]);
    });

    it('is accepted with a public JWK, a KeyObject-like CryptoKey, and one of several audiences', async () => {
      const jwk = await exportJWK(keys.publicKey);
      const token = await sign(claims({ aud: ['https://other.example', AUDIENCE] }));
      expect((await verifier({ key: jwk })(token)).subject).toBe('alice');
      expect((await verifier({ audience: ['https://x.example', AUDIENCE] })(token)).subject).toBe('alice');
    });

    it('refuses HS256 signed with the public key as the secret (algorithm confusion), and a secret verifier refuses ES256', async () => {
      const jwk = await exportJWK(keys.publicKey);
      const forged = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(JSON.stringify(jwk)));
      expect(await refusalOf(verifier()(forged))).toBe(TOKEN_REFUSALS.algorithm);
      const secret = 'a-shared-secret-of-at-least-32-bytes!';
      expect(await refusalOf(jwtVerifier({ secret, algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE })(await sign(claims()))))
        .toBe(TOKEN_REFUSALS.algorithm);
      const tampered = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(`${secret}-other`));
      expect(await refusalOf(jwtVerifier({ secret, algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE })(tampered)))
        .toBe(TOKEN_REFUSALS.signature);
    });

    // RFC 9068 §2.2.1: the authentication event, for step-up (RFC 9470), when the token names it.
    it('carries acr, amr and auth_time when the token names them, and nothing when it does not', async () => {
      const authTime = now() - 30;
      const principal = await verifier()(await sign(claims({ acr: 'urn:example:mfa', amr: ['pwd', 'otp'], auth_time: authTime })));
      expect(principal).toMatchObject({ acr: 'urn:example:mfa', amr: ['pwd', 'otp'], authTime });
      const plain = await verifier()(await sign(claims()));
      expect(['acr', 'amr', 'authTime'].filter((key) => key in plain)).toEqual([]);
    });

    it.each([
      ['an acr that is not a string', { acr: 1 }],
      ['an amr that is not an array of strings', { amr: 'pwd' }],
      ['an amr with a number', { amr: ['pwd', 2] }],
      ['an auth_time that is not a number', { auth_time: 'yesterday' }],
    ])('refuses %s', async (_name, override) => {
      expect(await refusalOf(verifier()(await sign(claims(override as JWTPayload))))).toBe(TOKEN_REFUSALS.invalid);
    });

    it('verifies RS256, PS256 and EdDSA, and refuses a key of another type for the pinned algorithm', async () => {
      for (const alg of ['RS256', 'PS256', 'EdDSA'] as const) {
        const pair = await generateKeyPair(alg);
        const token = await new SignJWT(claims()).setProtectedHeader({ alg }).sign(pair.privateKey);
        const verify = jwtVerifier({ key: await exportJWK(pair.publicKey), algorithms: [alg], issuer: ISSUER, audience: AUDIENCE });
        expect((await verify(token)).subject, alg).toBe('alice');
        // The ES256 key pinned for this algorithm: it cannot verify it, the token is refused.
        const mismatched = jwtVerifier({ key: keys.publicKey, algorithms: [alg], issuer: ISSUER, audience: AUDIENCE });
        expect(await refusalOf(mismatched(token)), alg).toBe(TOKEN_REFUSALS.invalid);
      }
    });

    it('is accepted with a shared secret, HS256', async () => {
      const secret = 'a-shared-secret-of-at-least-32-bytes!';
      const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
      const verify = jwtVerifier({ secret, algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
      expect((await verify(token)).scopes).toEqual(['me', 'items']);
    });
  });

  describe('a refused token: 401 invalid_token with a fixed description per cause', () => {
    const cases: [string, () => Promise<string>, string, Partial<Parameters<typeof jwtVerifier>[0]>?][] = [
      ['not a JWT', async () => 'not-a-jwt', TOKEN_REFUSALS.invalid],
      ['a signed payload that is not a JSON object', () =>
        new CompactSign(new TextEncoder().encode('[1]')).setProtectedHeader({ alg: 'ES256' }).sign(keys.privateKey), TOKEN_REFUSALS.invalid],
      ['expired', () => sign(claims({ exp: now() - 10 })), TOKEN_REFUSALS.expired],
      ['expired, beyond the clock tolerance', () => sign(claims({ exp: now() - 10 })), TOKEN_REFUSALS.expired, { clockTolerance: 5 }],
      ['not valid yet (nbf)', () => sign(claims({ nbf: now() + 60 })), TOKEN_REFUSALS.notYetValid],
      ['issued in the future (iat), when maxTokenAge is set', () => sign(claims({ iat: now() + 60 })), TOKEN_REFUSALS.notYetValid, { maxTokenAge: 300 }],
      ['older than maxTokenAge', () => sign(claims({ iat: now() - 120 })), TOKEN_REFUSALS.tooOld, { maxTokenAge: 60 }],
      ['without iat when maxTokenAge is set', () => sign(claims({ iat: undefined })), TOKEN_REFUSALS.missingClaim, { maxTokenAge: 60 }],
      ['without exp', () => sign(claims({ exp: undefined })), TOKEN_REFUSALS.missingClaim],
      ['without sub', () => sign(claims({ sub: undefined })), TOKEN_REFUSALS.missingClaim],
      ['with an empty sub', () => sign(claims({ sub: '' })), TOKEN_REFUSALS.invalid],
      ['of another issuer', () => sign(claims({ iss: 'https://evil.example' })), TOKEN_REFUSALS.issuer],
      ['without iss', () => sign(claims({ iss: undefined })), TOKEN_REFUSALS.missingClaim],
      ['for another audience', () => sign(claims({ aud: 'https://other.example' })), TOKEN_REFUSALS.audience],
      ['without aud', () => sign(claims({ aud: undefined })), TOKEN_REFUSALS.missingClaim],
      ['not typ at+jwt, when required', () => sign(claims(), { typ: 'JWT' }), TOKEN_REFUSALS.type, { requireAccessTokenType: true }],
      ['signed by another key', () => sign(claims(), {}, otherKeys.privateKey), TOKEN_REFUSALS.signature],
      // Its `iss`, read once the signature refused it, says whose it is (for anyOf's choice).
      ['signed by another key, of another issuer', () => sign(claims({ iss: 'https://other.example' }), {}, otherKeys.privateKey), TOKEN_REFUSALS.issuer],
      ['signed by another key, with an iss that is no string', () => sign(claims({ iss: 42 as never }), {}, otherKeys.privateKey), TOKEN_REFUSALS.signature],
      ['with a tampered payload', async () => {
        const [header, , signature] = (await sign(claims())).split('.');
        return `${header}.${Buffer.from(JSON.stringify(claims({ sub: 'root' }))).toString('base64url')}.${signature}`;
      }, TOKEN_REFUSALS.signature],
      ['with an algorithm not pinned', () => sign(claims()), TOKEN_REFUSALS.algorithm, { algorithms: ['RS256', 'PS256'] }],
      ['with a scope that is not a string', () => sign(claims({ scope: ['me'] })), TOKEN_REFUSALS.scope],
      ['with a doubled space in scope', () => sign(claims({ scope: 'me  items' })), TOKEN_REFUSALS.scope],
      ['with a quote in scope', () => sign(claims({ scope: 'me "items"' })), TOKEN_REFUSALS.scope],
      ['with an scp holding a non-string', () => sign(claims({ scope: undefined, scp: ['me', 1] })), TOKEN_REFUSALS.scope],
      ['with an scp that is an object', () => sign(claims({ scope: undefined, scp: { me: true } })), TOKEN_REFUSALS.scope],
      ['with a crit header (no extension is understood)', () =>
      new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', crit: ['urn:x'], 'urn:x': 1 }).sign(keys.privateKey, { crit: { 'urn:x': true } }), TOKEN_REFUSALS.invalid],
    ['with an unencoded payload (b64: false)', async () => {
      const token = await sign(claims());
      const [, payload, signature] = token.split('.');
      return `${Buffer.from(JSON.stringify({ alg: 'ES256', b64: false, crit: ['b64'] })).toString('base64url')}.${payload}.${signature}`;
    }, TOKEN_REFUSALS.invalid],
    ['signed by another key that its jwk header embeds', async () =>
      sign(claims(), { jwk: await exportJWK(otherKeys.publicKey) }, otherKeys.privateKey), TOKEN_REFUSALS.signature],
    ['signed by another key that its jku / x5u headers point to', () =>
      sign(claims(), { jku: 'https://evil.example/jwks', x5u: 'https://evil.example/cert', kid: 'evil' }, otherKeys.privateKey), TOKEN_REFUSALS.signature],
    ['with alg none and no signature', async () => {
      const [, payload] = (await sign(claims())).split('.');
      return `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`;
    }, TOKEN_REFUSALS.algorithm],
    ['with a header that is not base64url', async () => `e30*.${(await sign(claims())).split('.').slice(1).join('.')}`, TOKEN_REFUSALS.invalid],
    ['with a payload that is not UTF-8', async () => {
      const [header, , signature] = (await sign(claims())).split('.');
      return `${header}.${Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url')}.${signature}`;
    }, TOKEN_REFUSALS.signature],
    ['with claims the schema refuses', () => sign(claims()), TOKEN_REFUSALS.claims, { claims: z.object({ tenant: z.string() }) }],
    // A BOM is no part of a JWS's JSON: refused on both steps (WebCrypto's TextDecoder would strip it).
    ['with a payload that starts with a UTF-8 BOM', () =>
      new CompactSign(Buffer.concat([BOM, Buffer.from(JSON.stringify(claims()))])).setProtectedHeader({ alg: 'ES256' }).sign(keys.privateKey), TOKEN_REFUSALS.invalid],
    ['with a header that starts with a UTF-8 BOM', () =>
      signedRaw(Buffer.concat([BOM, Buffer.from(JSON.stringify({ alg: 'ES256' }))]), Buffer.from(JSON.stringify(claims()))), TOKEN_REFUSALS.invalid],
    ];

    it.each(cases)('%s', async (_name, token, description, options) => {
      const outcome = await outcomeOf(verifier(options)(await token()));
      expect(outcome).toEqual({
        kind: 'refused',
        description,
        challenge: `Bearer error="invalid_token", error_description="${description}"`,
      });
    });

    it('within the clock tolerance, an expired token is still accepted, until exp plus the tolerance', async () => {
      const exp = now() - 10;
      const principal = await verifier({ clockTolerance: 30 })(await sign(claims({ exp })));
      expect(principal.subject).toBe('alice');
      // When it stops being accepted: a cache keeps it, and a stream lives, no longer (and no shorter).
      expect(principal.expiresAt).toBe(exp + 30);
    });

    it('refuses a token past a fractional exp, and one past iat + maxTokenAge, to the millisecond', async () => {
      const at = Date.now() / 1000;
      expect(await refusalOf(verifier()(await sign(claims({ exp: at - 0.05 }))))).toBe(TOKEN_REFUSALS.expired);
      expect((await verifier()(await sign(claims({ exp: at + 5.5 })))).expiresAt).toBe(at + 5.5);
      expect(await refusalOf(verifier({ maxTokenAge: 60 })(await sign(claims({ iat: at - 60.2 }))))).toBe(TOKEN_REFUSALS.tooOld);
    });

    it('refuses a signature spelled with the bits of no byte set (RFC 4648 §3.5): one signature, one token string', async () => {
      const token = await sign(claims());
      const verify = verifier();
      expect((await verify(token)).subject).toBe('alice');
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(token.at(-1)!);
      // An ES256 signature is 64 bytes: 86 characters, the last carrying 4 bits of no byte.
      for (let bits = 1; bits < 16; bits++) {
        const respelled = `${token.slice(0, -1)}${alphabet[(last & ~0b1111) | bits]}`;
        expect(await refusalOf(verify(respelled)), respelled.at(-1)).toBe(TOKEN_REFUSALS.invalid);
      }
    });

    // `expiresAt` is the first instant the token is refused (docs/contract.md#verified-readers):
    // at `exp` (RFC 7519 §4.1.4: "on or after"), and alike at `iat + maxTokenAge`, which stands
    // in for it; both plus the tolerance. A cache and a stream end there, so the verifier must too.
    it('refuses the token at the very instant expiresAt names, whichever of exp and iat + maxTokenAge sets it', async () => {
      const iat = now() - 30;
      const byAge = await sign(claims({ iat, exp: iat + 3600 }));
      const byExp = await sign(claims({ iat, exp: iat + 60 }));
      const expiresAt = (await verifier({ maxTokenAge: 60, clockTolerance: 5 })(byAge)).expiresAt;
      expect((await verifier({ clockTolerance: 5 })(byExp)).expiresAt).toBe(expiresAt);
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(expiresAt * 1000 - 1);
        expect((await verifier({ maxTokenAge: 60, clockTolerance: 5 })(byAge)).subject).toBe('alice');
        expect((await verifier({ clockTolerance: 5 })(byExp)).subject).toBe('alice');
        vi.setSystemTime(expiresAt * 1000);
        expect(await refusalOf(verifier({ clockTolerance: 5 })(byExp))).toBe(TOKEN_REFUSALS.expired);
        expect(await refusalOf(verifier({ maxTokenAge: 60, clockTolerance: 5 })(byAge))).toBe(TOKEN_REFUSALS.tooOld);
      } finally {
        vi.useRealTimers();
      }
    });

    it('with maxTokenAge, expiresAt is when the token stops being accepted: iat + maxTokenAge when before exp', async () => {
      const iat = now();
      expect((await verifier({ maxTokenAge: 60 })(await sign(claims({ iat, exp: iat + 3600 })))).expiresAt).toBe(iat + 60);
      expect((await verifier({ maxTokenAge: 600 })(await sign(claims({ iat, exp: iat + 30 })))).expiresAt).toBe(iat + 30);
      expect((await verifier()(await sign(claims({ iat, exp: iat + 3600 })))).expiresAt).toBe(iat + 3600);
    });
  });

  // A key says what it may verify: a JWK by `alg`, `use` and `key_ops`, a CryptoKey by the
  // algorithm it was imported for and its usages. Both steps refuse what it forbids (node:crypto
  // used to drop these on the way to a KeyObject, accepting a PS256 token with an RS256 JWK).
  describe("a key used against its own restrictions (attack: a key's algorithm or use switched)", () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsaJwk = rsa.publicKey.export({ format: 'jwk' });
    /** A token signed with the RSA key, as `alg` says (RS*: PKCS #1 v1.5, PS*: PSS). */
    const rsaToken = (alg: 'RS256' | 'PS256' | 'PS512') => {
      const input = `${Buffer.from(JSON.stringify({ alg })).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}`;
      const padding = alg.startsWith('PS') ? { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST } : {};
      return `${input}.${cryptoSign(`sha${alg.slice(2)}`, Buffer.from(input), { key: rsa.privateKey, ...padding }).toString('base64url')}`;
    };
    const rsaVerifier = (key: Parameters<typeof jwtVerifier>[0]['key'], algorithms: ('RS256' | 'PS256' | 'PS512')[]) =>
      jwtVerifier({ key: key!, algorithms: algorithms as ['RS256'], issuer: ISSUER, audience: AUDIENCE });

    it.each([
      ['a JWK whose alg is RS256, for a PS256 token', { alg: 'RS256' }, 'PS256'],
      ['a JWK whose use is enc', { use: 'enc' }, 'RS256'],
      ['a JWK whose key_ops lack verify', { key_ops: ['encrypt'] }, 'RS256'],
      ['a JWK whose key_ops are not an array', { key_ops: 'verify' }, 'RS256'],
    ] as const)('refuses %s', async (_name, restriction, alg) => {
      const verify = rsaVerifier({ ...rsaJwk, ...restriction } as never, ['RS256', 'PS256']);
      expect(await refusalOf(verify(rsaToken(alg)))).toBe(TOKEN_REFUSALS.invalid);
    });

    it('accepts a JWK whose alg, use and key_ops allow the token', async () => {
      const verify = rsaVerifier({ ...rsaJwk, alg: 'PS256', use: 'sig', key_ops: ['verify'] } as never, ['RS256', 'PS256']);
      expect((await verify(rsaToken('PS256'))).subject).toBe('alice');
    });

    // RFC 7517 §4.3: `key_ops` list every operation the key is for. A key pair's JWK says
    // `["sign", "verify"]`, a key vault's names every operation; its public key verifies.
    it.each([
      ["a key pair's", ['sign', 'verify']],
      ["a key vault's, every operation", ['encrypt', 'decrypt', 'sign', 'verify', 'wrapKey', 'unwrapKey']],
    ])('accepts a JWK whose key_ops name verify among others (%s)', async (_name, keyOps) => {
      const verify = rsaVerifier({ ...rsaJwk, key_ops: keyOps } as never, ['RS256']);
      expect((await verify(rsaToken('RS256'))).subject).toBe('alice');
    });

    it('refuses a CryptoKey imported for another algorithm or hash, or whose usages lack verify', async () => {
      const imported = (algorithm: RsaHashedImportParams, usages: KeyUsage[] = ['verify']) => crypto.subtle.importKey('jwk', rsaJwk, algorithm, false, usages);
      const pkcs1 = await imported({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });
      expect((await rsaVerifier(pkcs1, ['RS256'])(rsaToken('RS256'))).subject).toBe('alice');
      expect(await refusalOf(rsaVerifier(pkcs1, ['PS512'])(rsaToken('PS512')))).toBe(TOKEN_REFUSALS.invalid);
      expect(await refusalOf(rsaVerifier(pkcs1, ['PS256'])(rsaToken('PS256')))).toBe(TOKEN_REFUSALS.invalid);
      const pss384 = await imported({ name: 'RSA-PSS', hash: 'SHA-384' });
      expect(await refusalOf(rsaVerifier(pss384, ['PS256'])(rsaToken('PS256')))).toBe(TOKEN_REFUSALS.invalid);
      const unusable = await imported({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, []);
      expect(await refusalOf(rsaVerifier(unusable, ['RS256'])(rsaToken('RS256')))).toBe(TOKEN_REFUSALS.invalid);
    });
  });

  describe('options it cannot honour are refused when it is built', () => {
    const base = { issuer: ISSUER, audience: AUDIENCE };
    const cases: [string, () => unknown][] = [
      // @ts-expect-error no key
      ['no key', () => jwtVerifier({ ...base, algorithms: ['RS256'] })],
      // @ts-expect-error two keys
      ['two keys', () => jwtVerifier({ ...base, key: keys.publicKey, secret: 'x'.repeat(64), algorithms: ['ES256'] })],
      // @ts-expect-error algorithms are required
      ['no algorithms', () => jwtVerifier({ ...base, key: keys.publicKey })],
      // @ts-expect-error at least one algorithm
      ['empty algorithms', () => jwtVerifier({ ...base, key: keys.publicKey, algorithms: [] })],
      // @ts-expect-error none is no algorithm
      ['alg none', () => jwtVerifier({ ...base, key: keys.publicKey, algorithms: ['none'] })],
      // @ts-expect-error a public key verifies asymmetric algorithms only
      ['HS256 with a public key', () => jwtVerifier({ ...base, key: keys.publicKey, algorithms: ['HS256'] })],
      // @ts-expect-error a secret verifies HMAC only
      ['RS256 with a secret', () => jwtVerifier({ ...base, secret: 'x'.repeat(64), algorithms: ['RS256'] })],
      ['a short secret', () => jwtVerifier({ ...base, secret: 'short', algorithms: ['HS256'] })],
      ['a secret too short for HS512', () => jwtVerifier({ ...base, secret: 'x'.repeat(48), algorithms: ['HS512'] })],
      ['the private key', () => jwtVerifier({ ...base, key: keys.privateKey, algorithms: ['ES256'] })],
      ['a symmetric JWK as key', () => jwtVerifier({ ...base, key: { kty: 'oct', k: 'AAAA' }, algorithms: ['ES256'] })],
      // @ts-expect-error a string is no key: a shared secret goes in secret
      ['a string as key', () => jwtVerifier({ ...base, key: 'x'.repeat(64), algorithms: ['ES256'] })],
      ['a plain-http key set off loopback', () => jwtVerifier({ ...base, jwksUrl: 'http://issuer.example/jwks', algorithms: ['RS256'] })],
      ['a relative key set URL', () => jwtVerifier({ ...base, jwksUrl: '/jwks', algorithms: ['RS256'] })],
      // fetch() refuses to request a URL with credentials: every verification would answer 503.
      ['a key set URL with a user and password', () => jwtVerifier({ ...base, jwksUrl: 'https://user:pass@issuer.example/jwks', algorithms: ['RS256'] })],
      ['a loopback key set URL with a user and password', () => jwtVerifier({ ...base, jwksUrl: 'http://user:pass@127.0.0.1:8080/jwks', algorithms: ['RS256'] })],
      ['a key set URL with a user only', () => jwtVerifier({ ...base, jwksUrl: new URL('https://user@issuer.example/jwks'), algorithms: ['RS256'] })],
      ['a key set URL with a password only', () => jwtVerifier({ ...base, jwksUrl: 'https://:pass@issuer.example/jwks', algorithms: ['RS256'] })],
      // @ts-expect-error the issuer is required
      ['no issuer', () => jwtVerifier({ audience: AUDIENCE, key: keys.publicKey, algorithms: ['ES256'] })],
      // @ts-expect-error the audience is required
      ['no audience', () => jwtVerifier({ issuer: ISSUER, key: keys.publicKey, algorithms: ['ES256'] })],
      ['an empty audience', () => jwtVerifier({ issuer: ISSUER, audience: '', key: keys.publicKey, algorithms: ['ES256'] })],
    ];
    it.each(cases)('%s', (_name, build) => {
      expect(build).toThrow(TypeError);
    });
    it('says a key set URL carries credentials, without echoing them', () => {
      const build = () => jwtVerifier({ ...base, jwksUrl: 'http://user:s3cret@127.0.0.1:8080/jwks', algorithms: ['RS256'] });
      expect(build).toThrow(new TypeError('jwksUrl must not carry credentials'));
    });

    // A duration that is not a finite number in range would turn the comparison it enters false
    // and disable its check: NaN (an unset environment variable through Number), jose's '30s'.
    const jwks = { ...base, jwksUrl: 'https://issuer.example/jwks', algorithms: ['ES256'] as const };
    it.each([
      ['clockTolerance', [NaN, '30s', Infinity, -1]],
      ['maxTokenAge', [NaN, '1h', Infinity, 0, -60]],
    ] as const)('a %s that is not a finite number in range', (option, values) => {
      for (const value of values) expect(() => verifier({ [option]: value as never }), `${option}: ${String(value)}`).toThrow(TypeError);
    });
    it.each([
      ['cooldownDuration', [NaN, '30s', Infinity, -1]],
      ['minRefetchInterval', [NaN, '1s', Infinity, -1, 2 ** 31]],
      ['timeoutDuration', [NaN, '5s', Infinity, 0, 1.5, 2 ** 31]],
      ['cacheMaxAge', [NaN, '10m', Infinity, -1]],
      ['staleIfErrorDuration', [NaN, '1h', Infinity, -1]],
      ['failureCooldownDuration', [NaN, '5s', Infinity, -1]],
    ] as const)('a key set %s that is not a finite number in range', (option, values) => {
      for (const value of values) expect(() => jwtVerifier({ ...jwks, [option]: value as never }), `${option}: ${String(value)}`).toThrow(TypeError);
    });
    it('durations in range, 0 where it means none', () => {
      expect(() => verifier({ clockTolerance: 0, maxTokenAge: 0.5 })).not.toThrow();
      expect(() =>
        jwtVerifier({ ...jwks, cooldownDuration: 0, minRefetchInterval: 0, timeoutDuration: 1, cacheMaxAge: 0, staleIfErrorDuration: 0, failureCooldownDuration: 0 }),
      ).not.toThrow();
    });
  });

  describe('a key set that cannot answer', () => {
    let hanging: Server;
    let hangingUrl: string;
    beforeAll(async () => {
      hanging = createServer(() => undefined); // accepts, never answers
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
      hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/jwks`;
    });
    afterAll(async () => {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    });

    it('answers 503 after timeoutDuration, never hangs', async () => {
      const verify = jwtVerifier({ jwksUrl: hangingUrl, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE, timeoutDuration: 200 });
      const started = Date.now();
      expect(await outcomeOf(verify(await sign(claims())))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
      expect(Date.now() - started).toBeLessThan(4_000); // bounded by the timeout, with room for a loaded machine
    });

    it('answers 503 when nothing listens', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks`;
      await new Promise((resolve) => closed.close(resolve));
      const verify = jwtVerifier({ jwksUrl: url, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE });
      expect(await outcomeOf(verify(await sign(claims())))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
    });

    it("rejects with the caller's abort reason when the request goes away", async () => {
      const verify = jwtVerifier({ jwksUrl: hangingUrl, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE, timeoutDuration: 5_000 });
      const reason = new Error('client went away');
      const controller = new AbortController();
      const verification = verify(await sign(claims()), verifyOptions(controller.signal));
      controller.abort(reason);
      await expect(verification).rejects.toBe(reason);
    });
  });

  it('a refusal names no part of the token or its claims', async () => {
    const marker = 'attacker-controlled-marker';
    const token = await sign(claims({ iss: marker, sub: marker, scope: `${marker} "x"` }), { kid: marker });
    const description = await refusalOf(verifier()(token));
    expect(description).not.toContain(marker);
    expect(Object.values(TOKEN_REFUSALS)).toContain(description);
  });
});

describe.each(VERIFICATION_PATHS)('the cnf claim (RFC 9449 §6.1), signature checked by $name', ({ jwtVerifier }) => {
  const verifier = () => jwtVerifier({ key: keys.publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE });
  const jkt = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

  it('gives the key a token is bound to as principal.cnf', async () => {
    expect((await verifier()(await sign(claims({ cnf: { jkt } })))).cnf).toEqual({ jkt });
    expect((await verifier()(await sign(claims()))).cnf).toBeUndefined();
  });

  it.each([
    ['a string', 'x'],
    ['an array', [jkt]],
    ['a jkt that is not a thumbprint', { jkt: 'short' }],
    ['a jkt that is a number', { jkt: 1 }],
  ])('refuses a malformed cnf: %s', async (_, cnf) => {
    expect(await refusalOf(verifier()(await sign(claims({ cnf }))))).toBe(TOKEN_REFUSALS.confirmation);
  });
});
