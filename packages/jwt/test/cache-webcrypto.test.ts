// cacheVerifier where there is no node:crypto (no `process.getBuiltinModule`: an edge function, a
// browser): its key is WebCrypto's SHA-256, which answers later, so `peek` finds nothing and
// `verify` remembers. The digest is handed in as the runtime would pick it; no global is touched.
import { createHash } from 'node:crypto';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { describe, expect, it } from 'vitest';
import { cacheVerifierKeyedBy } from '../src/cache-verifier.js';
import { runtimeTokenDigest, tokenDigestFrom, type TokenDigest } from '../src/token-digest.js';
import type { Principal, TokenVerifier } from '../src/index.js';
import { verifyOptions } from './support/verify-options.js';

const seconds = () => Date.now() / 1000;

/** The digest a runtime with WebCrypto and without `node:crypto` gets. */
const webCrypto = tokenDigestFrom({ subtle: globalThis.crypto.subtle })!;

/** A verifier that records its calls and answers what `answer` says. */
function recording<T extends Principal>(answer: (token: string) => T | Promise<T>) {
  const calls: string[] = [];
  const verifier: TokenVerifier<T> = async (token) => {
    calls.push(token);
    return answer(token);
  };
  return { calls, verifier };
}

describe('the cache key', () => {
  it('is the one Node computes: base64 SHA-256 of the UTF-8, computed later by WebCrypto', async () => {
    expect(webCrypto.sync).toBe(false);
    for (const text of ['', 'eyJhbGciOiJFUzI1NiJ9.e30.sig', '3:été:t\u{1F600}', 'x'.repeat(10_000)]) {
      const digest = webCrypto.digest(text);
      expect(digest).toBeInstanceOf(Promise);
      expect(await digest).toBe(createHash('sha256').update(text).digest('base64'));
    }
  });

  it("is Node's, synchronous, on Node (process.getBuiltinModule reaches node:crypto)", () => {
    expect(runtimeTokenDigest?.sync).toBe(true);
    expect(runtimeTokenDigest?.digest('t')).toBe(createHash('sha256').update('t').digest('base64'));
  });

  it('needs one of them: a runtime with neither has no cacheVerifier', () => {
    expect(tokenDigestFrom({})).toBeUndefined();
    const { verifier } = recording(() => ({ scopes: [] }));
    expect(() => cacheVerifierKeyedBy(verifier, { maxEntries: 1 }, undefined)).toThrow(TypeError);
  });
});

describe('cacheVerifier keyed by WebCrypto', () => {
  const cached = <T extends Principal>(verifier: TokenVerifier<T>, digest: TokenDigest = webCrypto) =>
    cacheVerifierKeyedBy(verifier, { maxEntries: 10 }, digest);

  it('verifies a token once, then answers from the cache', async () => {
    const { calls, verifier } = recording((token) => ({ scopes: [token], expiresAt: seconds() + 60 }));
    const verify = cached(verifier);
    const first = await verify('a');
    expect(await verify('a')).toBe(first);
    expect(await verify('a', verifyOptions())).toBe(first);
    await verify('b');
    expect(calls).toEqual(['a', 'b']);
  });

  it('offers a peek that finds nothing, even for a remembered token (the key is not known yet)', async () => {
    const { calls, verifier } = recording((token) => ({ scopes: [token], expiresAt: seconds() + 60 }));
    const verify = cached(verifier);
    expect(verify.peek!('a')).toBeUndefined();
    const principal = await verify('a');
    expect(verify.peek!('a')).toBeUndefined();
    // Asking peek keeps nothing: verify still answers from the entry its digest found.
    expect(await verify('a')).toBe(principal);
    expect(calls).toEqual(['a']);
  });

  it('shares one verification between concurrent callers of the same token', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { calls, verifier } = recording(async () => {
      await gate;
      return { scopes: ['me'] };
    });
    const verify = cached(verifier);
    const all = Promise.all([verify('t'), verify('t'), verify('t'), verify('u')]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    const [a, b, c, d] = await all;
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(d).not.toBe(a);
    expect(calls).toEqual(['t', 'u']);
  });

  it('does not cache refusals, and forgets a token a fresh verification refuses', async () => {
    let active = true;
    const { calls, verifier } = recording<Principal>((token) => {
      if (!active) throw invalidTokenError('The access token is not active');
      return { scopes: [token], expiresAt: seconds() + 60 };
    });
    const verify = cached(verifier);
    await verify('t');
    await verify('t');
    expect(calls).toEqual(['t']);
    active = false; // revoked
    await expect(verify('t', { ...verifyOptions(), fresh: true })).rejects.toThrow('The access token is not active');
    await expect(verify('t')).rejects.toThrow('The access token is not active');
    await expect(verify('t')).rejects.toThrow('The access token is not active');
    expect(calls).toEqual(['t', 't', 't', 't']);
  });

  it("never answers a string from another's entry: a lone surrogate is not U+FFFD", async () => {
    const { calls, verifier } = recording((token) => {
      if (token !== 'x\uFFFD') throw invalidTokenError('The access token is invalid');
      return { scopes: ['me'], expiresAt: seconds() + 60 };
    });
    const verify = cached(verifier);
    await verify('x\uFFFD');
    await expect(verify('x\uDFFF')).rejects.toThrow('The access token is invalid');
    expect(calls).toEqual(['x\uFFFD', 'x\uDFFF']);
  });

  it('keeps entries per partition, and offers no peek then', async () => {
    const { calls, verifier } = recording((token) => ({ scopes: [token], expiresAt: seconds() + 60 }));
    const verify = cacheVerifierKeyedBy(verifier, { maxEntries: 10, partition: (options) => (options.ctx as { tenant: string }).tenant }, webCrypto);
    expect(verify.peek).toBeUndefined();
    const as = (tenant: string) => ({ ...verifyOptions(), ctx: { tenant } });
    const acme = await verify('t', as('acme'));
    expect(await verify('t', as('acme'))).toBe(acme);
    expect(await verify('t', as('globex'))).not.toBe(acme);
    await expect(verify('t')).rejects.toThrow(TypeError); // a partition needs the request
    expect(calls).toEqual(['t', 't']);
  });

  it("lets one caller's abort end its own wait only, the digest still under way", async () => {
    const { calls, verifier } = recording(() => ({ scopes: ['me'], expiresAt: seconds() + 60 }));
    const verify = cached(verifier);
    const controller = new AbortController();
    const leaving = verify('t', verifyOptions(controller.signal));
    const staying = verify('t');
    controller.abort(new Error('gone'));
    await expect(leaving).rejects.toThrow('gone');
    expect((await staying).scopes).toEqual(['me']);
    expect(calls).toEqual(['t']);
  });

  it('rejects (never throws) when the digest fails, and keeps nothing', async () => {
    const failing: TokenDigest = { sync: false, digest: () => Promise.reject(new Error('no digest')) };
    const { calls, verifier } = recording(() => ({ scopes: ['me'] }));
    const verify = cached(verifier, failing);
    const answer = verify('t');
    await expect(answer).rejects.toThrow('no digest');
    expect(calls).toEqual([]);
  });
});
