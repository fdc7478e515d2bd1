// cacheVerifier: bounded, never past expiresAt or maxAge, refusals not cached, one call per token in flight.
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import { generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cacheVerifierKeyedBy } from '../src/cache-verifier.js';
import { cacheVerifier, TOKEN_REFUSALS, type Principal, type TokenVerifier } from '../src/index.js';
import { runtimeTokenDigest, type TokenDigest } from '../src/token-digest.js';
import { refusalOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';
import { verifyOptions } from './support/verify-options.js';

afterEach(() => vi.useRealTimers());

const seconds = () => Date.now() / 1000;

/** A verifier that records its calls and answers what `answer` says. */
function recording<T extends Principal>(answer: (token: string) => T | Promise<T>) {
  const calls: string[] = [];
  const verifier: TokenVerifier<T> = async (token) => {
    calls.push(token);
    return answer(token);
  };
  return { calls, verifier };
}

/** A cached verifier whose answers (`{ scopes: ['me'] }`) wait until `release()` is called. */
function gated() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { calls, verifier } = recording(async () => {
    await gate;
    return { scopes: ['me'] };
  });
  return { calls, verify: cacheVerifier(verifier, { maxEntries: 10 }), release };
}

describe('cacheVerifier', () => {
  it('verifies a token once, then answers from the cache', async () => {
    const { calls, verifier } = recording((token) => ({ scopes: [token], expiresAt: seconds() + 60 }));
    const verify = cacheVerifier(verifier, { maxEntries: 10 });
    const first = await verify('a');
    expect(await verify('a')).toBe(first);
    expect(calls).toEqual(['a']);
  });

  it('shares one verification between concurrent callers of the same token', async () => {
    const { calls, verify, release } = gated();
    const all = Promise.all([verify('t'), verify('t'), verify('t'), verify('u')]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    const [a, b, c, d] = await all;
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(d).not.toBe(a);
    expect(calls).toEqual(['t', 'u']);
  });

  it("lets one caller's abort end its own wait only", async () => {
    const { calls, verify, release } = gated();
    const controller = new AbortController();
    const leaving = verify('t', verifyOptions(controller.signal));
    const staying = verify('t');
    controller.abort(new Error('gone'));
    await expect(leaving).rejects.toThrow('gone');
    release();
    expect((await staying).scopes).toEqual(['me']);
    expect(calls).toEqual(['t']);
  });

  it('does not cache refusals: each is verified again', async () => {
    const { calls, verifier } = recording<Principal>(() => {
      throw invalidTokenError('The access token is invalid');
    });
    const verify = cacheVerifier(verifier, { maxEntries: 10 });
    await expect(verify('bad')).rejects.toThrow('The access token is invalid');
    await expect(verify('bad')).rejects.toThrow('The access token is invalid');
    expect(calls).toEqual(['bad', 'bad']);
  });

  it('asks the verifier again for a fresh verification, remembers its answer, and forgets a token it then refuses', async () => {
    let active = true;
    const { calls, verifier } = recording<Principal>((token) => {
      if (!active) throw invalidTokenError('The access token is not active');
      return { scopes: [token], expiresAt: seconds() + 60 };
    });
    const verify = cacheVerifier(verifier, { maxEntries: 10 });
    await verify('t');
    const fresh = { request: { method: 'GET', url: 'http://127.0.0.1/', header: () => undefined }, ctx: {}, fresh: true };
    const renewed = await verify('t', fresh);
    expect(calls).toEqual(['t', 't']);
    expect(verify.peek!('t')).toBe(renewed);
    active = false; // revoked
    await expect(verify('t', fresh)).rejects.toThrow('The access token is not active');
    expect(verify.peek!('t')).toBeUndefined();
    await expect(verify('t')).rejects.toThrow('The access token is not active');
    expect(calls).toEqual(['t', 't', 't', 't']);
  });

  it('never lets a fresh verification share one under way without fresh (a cache inside the verifier may answer that one)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: boolean[] = [];
    const verify = cacheVerifier<Principal>(
      async (_token, options) => {
        seen.push(options?.fresh === true);
        await gate;
        // The verifier's own cache answers a verification that is not fresh: the token is revoked at the source.
        if (options?.fresh === true) throw invalidTokenError('The access token is not active');
        return { scopes: ['me'], expiresAt: seconds() + 60 };
      },
      { maxEntries: 10 },
    );
    const options = { request: { method: 'GET', url: 'http://127.0.0.1/', header: () => undefined }, ctx: {} };
    const ordinary = verify('t', options);
    const fresh = verify('t', { ...options, fresh: true });
    // A later ordinary caller may share the fresh one: a source's answer is good for it too.
    const later = verify('t', options);
    release();
    expect((await ordinary).scopes).toEqual(['me']);
    await expect(fresh).rejects.toThrow('The access token is not active');
    await expect(later).resolves.toMatchObject({ scopes: ['me'] });
    expect(seen).toEqual([false, true]);
  });

  it("never answers a string from another's entry: a lone surrogate is not U+FFFD", async () => {
    const { calls, verifier } = recording((token) => {
      if (token !== 'x\uFFFD') throw invalidTokenError('The access token is invalid');
      return { scopes: ['me'], expiresAt: seconds() + 60 };
    });
    const verify = cacheVerifier(verifier, { maxEntries: 10 });
    await verify('x\uFFFD');
    expect(verify.peek!('x\uDFFF')).toBeUndefined();
    await expect(verify('x\uDFFF')).rejects.toThrow('The access token is invalid');
    expect(calls).toEqual(['x\uFFFD', 'x\uDFFF']);
  });

  it("never answers a tenant from another's entry: a lone surrogate in the partition is not U+FFFD", async () => {
    const verify = cacheVerifier<Principal>(
      async (_token, options) => {
        if ((options?.ctx as { tenant: string }).tenant !== 'acme\uFFFD') throw invalidTokenError('The access token is invalid');
        return { scopes: ['me'], expiresAt: seconds() + 60 };
      },
      { maxEntries: 10, partition: (options) => (options.ctx as { tenant: string }).tenant },
    );
    const request = { method: 'GET', url: 'http://127.0.0.1/', header: () => undefined };
    await verify('t', { request, ctx: { tenant: 'acme\uFFFD' } });
    await expect(verify('t', { request, ctx: { tenant: 'acme\uD800' } })).rejects.toThrow('The access token is invalid');
  });

  // The verifiers refuse a token over 64 KiB before reading any of it (docs/contract.md#verified-readers);
  // the cache in front of them must not hash it first, twice (peek, then verify): a token from a
  // WebSocket's connection params has no HTTP header limit above it.
  it('hands a token over 64 KiB to the verifier unhashed, and never remembers it', async () => {
    const hashed: number[] = [];
    const digest: TokenDigest = {
      sync: true,
      digest: (text) => {
        hashed.push(text.length);
        return (runtimeTokenDigest as Extract<TokenDigest, { sync: true }>).digest(text);
      },
    };
    const { calls, verifier } = recording(() => ({ scopes: ['me'], expiresAt: seconds() + 60 }));
    const verify = cacheVerifierKeyedBy(verifier, { maxEntries: 10 }, digest);
    const long = 't'.repeat(64 * 1024 + 1);
    expect(verify.peek!(long)).toBeUndefined();
    await verify(long);
    await verify(long);
    expect(verify.peek!(long)).toBeUndefined();
    expect(calls).toEqual([long, long]);
    expect(hashed).toEqual([]);
    // 64 KiB is a token like any other: hashed and remembered.
    const longest = 't'.repeat(64 * 1024);
    await verify(longest);
    expect(verify.peek!(longest)).toMatchObject({ scopes: ['me'] });
    expect(calls).toHaveLength(3);

    const { publicKey } = await generateKeyPair('ES256');
    const jwt = cacheVerifierKeyedBy(
      VERIFICATION_PATHS[0]!.jwtVerifier({ key: publicKey, algorithms: ['ES256'], issuer: 'https://issuer.example', audience: 'https://api.example' }),
      { maxEntries: 10 },
      digest,
    );
    hashed.length = 0;
    const huge = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${'A'.repeat(8 << 20)}.AAAA`;
    expect(jwt.peek!(huge)).toBeUndefined();
    expect(await refusalOf(jwt(huge))).toBe(TOKEN_REFUSALS.invalid);
    expect(hashed).toEqual([]);
  });

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const { calls, verifier } = recording((token) => ({ scopes: [token] }));
    const verify = cacheVerifier(verifier, { maxEntries: 2 });
    await verify('a');
    await verify('b');
    await verify('a'); // a is now the most recently used
    await verify('c'); // drops b
    await verify('a');
    await verify('b');
    expect(calls).toEqual(['a', 'b', 'c', 'b']);
  });

  it('verifies again after maxAge, and after expiresAt', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { calls, verifier } = recording((token) => ({ scopes: [], expiresAt: token === 'short' ? seconds() + 5 : undefined }));
    const verify = cacheVerifier(verifier, { maxEntries: 10, maxAge: 30 });
    await verify('short');
    await verify('long');
    vi.setSystemTime(Date.now() + 6_000);
    await verify('short'); // past its expiresAt
    await verify('long'); // within maxAge
    vi.setSystemTime(Date.now() + 30_000);
    await verify('long'); // past maxAge
    expect(calls).toEqual(['short', 'long', 'short', 'long']);
  });

  it('peek answers a remembered principal synchronously, and nothing before its verification or past its lifetime', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { calls, verifier } = recording((token) => ({ scopes: [token], expiresAt: seconds() + 5 }));
    const verify = cacheVerifier(verifier, { maxEntries: 10 });
    expect(verify.peek!('a')).toBeUndefined();
    const principal = await verify('a');
    expect(verify.peek!('a')).toBe(principal);
    expect(verify.peek!('b')).toBeUndefined();
    vi.setSystemTime(Date.now() + 6_000);
    expect(verify.peek!('a')).toBeUndefined(); // past its expiresAt
    expect(calls).toEqual(['a']);
  });

  it('refuses options it cannot honour', () => {
    const { verifier } = recording(() => ({ scopes: [] }));
    for (const options of [
      { maxEntries: 0 }, { maxEntries: 1.5 }, { maxEntries: 1, maxAge: -1 }, { maxEntries: 1, maxAge: Infinity },
      { maxEntries: 1, maxAge: NaN }, { maxEntries: 1, maxAge: '5m' as never }, { maxEntries: 1, partition: 'host' as never },
    ]) {
      expect(() => cacheVerifier(verifier, options)).toThrow(TypeError);
    }
  });

  // The invariant: whatever the tokens, their lifetimes and the clock, a principal is never
  // returned at or past its expiresAt, nor older than maxAge, and the cache never exceeds maxEntries.
  it('never returns a principal past its expiresAt or maxAge (property)', async () => {
    const step = fc.record({
      token: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      lifetime: fc.option(fc.integer({ min: -5, max: 120 }), { nil: undefined }),
      advance: fc.integer({ min: 0, max: 40_000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 60 }), async (steps, maxEntries, maxAge) => {
        vi.useFakeTimers({ toFake: ['Date'] });
        vi.setSystemTime(1_800_000_000_000);
        try {
          let lifetime: number | undefined;
          const issued = new Map<Principal, number>();
          const verify = cacheVerifier<Principal>(async () => {
            const principal = { scopes: [], expiresAt: lifetime === undefined ? undefined : Math.floor(seconds()) + lifetime };
            issued.set(principal, Date.now());
            return principal;
          }, { maxEntries, maxAge });
          for (const { token, lifetime: next, advance } of steps) {
            lifetime = next;
            vi.setSystemTime(Date.now() + advance);
            // What peek answers (synchronously) holds to the same invariant as what verify answers.
            const peeked = verify.peek!(token);
            if (peeked !== undefined) {
              if (peeked.expiresAt !== undefined) expect(peeked.expiresAt * 1000).toBeGreaterThan(Date.now());
              expect(Date.now() - issued.get(peeked)!).toBeLessThanOrEqual(maxAge * 1000);
            }
            const principal = await verify(token);
            if (peeked !== undefined) expect(principal).toBe(peeked);
            if (principal.expiresAt !== undefined && issued.get(principal) !== Date.now()) {
              expect(principal.expiresAt * 1000).toBeGreaterThan(Date.now());
            }
            expect(Date.now() - issued.get(principal)!).toBeLessThanOrEqual(maxAge * 1000);
          }
        } finally {
          vi.useRealTimers();
        }
      }),
      { numRuns: 200 },
    );
  });

  describe('partition: a verifier whose answer depends on the request', () => {
    const on = (host: string) => ({ ...verifyOptions(), request: { method: 'GET', url: `https://${host}/items`, header: () => undefined } });
    // One token, valid for tenant a only: the verifier picks the tenant from the request's host.
    const tenants = () => {
      const hosts: string[] = [];
      const verifier: TokenVerifier<Principal> = async (_token, options) => {
        const host = new URL(options!.request.url).host;
        hosts.push(host);
        if (host !== 'a.example') throw invalidTokenError('Not issued for this tenant');
        return { scopes: ['me'] };
      };
      return { hosts, verifier };
    };
    const byHost = (options: { request: { url: string } }) => new URL(options.request.url).host;

    it("never answers one tenant's token from the cache for another", async () => {
      const { hosts, verifier } = tenants();
      const verify = cacheVerifier(verifier, { maxEntries: 10, partition: byHost });
      await expect(verify('t', on('a.example'))).resolves.toEqual({ scopes: ['me'] });
      await expect(verify('t', on('b.example'))).rejects.toThrow('Not issued for this tenant');
      await expect(verify('t', on('a.example'))).resolves.toEqual({ scopes: ['me'] });
      expect(hosts).toEqual(['a.example', 'b.example']);
      expect('peek' in verify).toBe(false);
    });

    it('without one, every request shares the cache (right for a verifier that ignores the request)', async () => {
      const { hosts, verifier } = tenants();
      const verify = cacheVerifier(verifier, { maxEntries: 10 });
      await verify('t', on('a.example'));
      await expect(verify('t', on('b.example'))).resolves.toEqual({ scopes: ['me'] });
      expect(hosts).toEqual(['a.example']);
    });

    it('gives the verifier the request and ctx of the call it shares, never a signal', async () => {
      const seen: unknown[] = [];
      const verify = cacheVerifier<Principal>(
        async (_token, options) => {
          seen.push(options);
          return { scopes: [] };
        },
        { maxEntries: 10 },
      );
      const options = { ...on('a.example'), signal: new AbortController().signal, ctx: { tenant: 'a' } };
      await verify('t', options);
      expect(seen).toEqual([{ request: options.request, ctx: { tenant: 'a' } }]);
    });

    it('refuses a verification without the request, and a partition that is not a string', async () => {
      const { verifier } = tenants();
      await expect(cacheVerifier(verifier, { maxEntries: 10, partition: byHost })('t')).rejects.toThrow(TypeError);
      await expect(cacheVerifier(verifier, { maxEntries: 10, partition: () => 1 as never })('t', on('a.example'))).rejects.toThrow(TypeError);
    });
  });
});

// jwtVerifier's principal says when the token stops being accepted: with maxTokenAge, that is
// `iat + maxTokenAge` when it comes before `exp`, so the cache (and a subscription) ends then too
// (docs/contract.md#verified-readers).
describe.each(VERIFICATION_PATHS)('cacheVerifier over a jwtVerifier with maxTokenAge, signature checked by $name', ({ jwtVerifier }) => {
  const ISSUER = 'https://issuer.example';
  const AUDIENCE = 'https://api.example';

  it('answers no longer than maxTokenAge after iat, from peek or from verify', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const iat = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', iat, exp: iat + 3600 }).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    let calls = 0;
    const inner = jwtVerifier({ key: publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE, maxTokenAge: 60 });
    const verify = cacheVerifier<{ scopes: readonly string[]; expiresAt: number }>((t, o) => (calls++, inner(t, o)), { maxEntries: 10, maxAge: 300 });

    vi.useFakeTimers({ toFake: ['Date'], now: iat * 1000 });
    expect((await verify(token)).expiresAt).toBe(iat + 60); // not exp, an hour away
    vi.setSystemTime((iat + 59) * 1000);
    expect(verify.peek!(token)).toBeDefined();
    vi.setSystemTime((iat + 61) * 1000);
    expect(verify.peek!(token)).toBeUndefined();
    expect(await refusalOf(verify(token))).toBe(TOKEN_REFUSALS.tooOld);
    expect(calls).toBe(2);
  });
});

// A remembered principal is shared by every later request with its token: a middleware that
// pushes a scope on `ctx.principal.scopes` cannot grant it to them (docs/contract.md#verified-readers).
describe('cacheVerifier and a middleware that changes the principal in place', () => {
  it('freezes the scopes it remembers, so no later request is granted more', async () => {
    const t = initTRPC.context<{ headers: Record<string, string> }>().create();
    const auth = oauth2PasswordBearer({
      tokenUrl: '/token',
      scopes: { me: 'Me', admin: 'Admin' },
      verify: cacheVerifier(async () => ({ scopes: ['me'] }), { maxEntries: 10 }),
    });
    const derive = t.middleware(({ ctx, next }) => {
      (ctx as unknown as { principal: { scopes: string[] } }).principal.scopes.push('admin');
      return next();
    });
    const router = t.router({
      poison: t.procedure.use(auth).use(derive).query(() => 'ran'),
      admin: t.procedure.use(auth.withScopes('admin')).query(() => 'admin'),
    });
    const caller = t.createCallerFactory(router)({ headers: { authorization: 'Bearer same-token' } });
    // The push throws (the remembered grant is frozen): a fault of the middleware's, which tRPC wraps.
    await expect(caller.poison()).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR', cause: expect.any(TypeError) });
    await expect(caller.admin()).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

// The same, by assignment instead of a push: the remembered principal itself is shared, so a
// middleware that puts other scopes, another expiry or another binding on `ctx.principal` must not
// change what any later request with the token is granted (docs/contract.md#verified-readers).
describe('cacheVerifier and a middleware that assigns to the principal', () => {
  const jkt = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
  const setup = (change: (principal: Record<string, unknown>) => void) => {
    const t = initTRPC.context<{ headers: Record<string, string> }>().create();
    const expiresAt = Math.floor(seconds()) + 600;
    const auth = oauth2PasswordBearer({
      tokenUrl: '/token',
      scopes: { me: 'Me', admin: 'Admin' },
      verify: cacheVerifier(async () => ({ scopes: ['me'], expiresAt }), { maxEntries: 10 }),
    });
    const derive = t.middleware(({ ctx, next }) => {
      change((ctx as unknown as { principal: Record<string, unknown> }).principal);
      return next();
    });
    const router = t.router({
      poison: t.procedure.use(auth).use(derive).query(() => 'ran'),
      admin: t.procedure.use(auth.withScopes('admin')).query(() => 'admin'),
      principal: t.procedure.use(auth).query(({ ctx }) => ctx.principal),
    });
    return { expiresAt, caller: t.createCallerFactory(router)({ headers: { authorization: 'Bearer same-token' } }) };
  };

  it('never grants a later request the scopes assigned to it', async () => {
    const { caller } = setup((principal) => {
      principal.scopes = [...(principal.scopes as string[]), 'admin'];
    });
    await caller.poison().catch(() => undefined); // the assignment may throw: the middleware's fault
    await expect(caller.admin()).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('never gives a later request the expiry or the binding assigned to it', async () => {
    const { caller, expiresAt } = setup((principal) => {
      principal.expiresAt = Number.MAX_SAFE_INTEGER;
      principal.cnf = { jkt };
    });
    await caller.poison().catch(() => undefined);
    const principal = await caller.principal();
    expect(principal.expiresAt).toBe(expiresAt);
    expect('cnf' in principal).toBe(false);
  });
});

// Callers sharing one verification share its principal too, remembered or not (`maxAge: 0`, or
// a token about to expire): what one of them assigns to it must not reach the others.
describe('cacheVerifier: callers sharing one verification', () => {
  it('never see what another assigned to the principal they share, even when it is not remembered', async () => {
    const { verifier } = recording(async () => ({ scopes: ['me'], expiresAt: seconds() + 600 }));
    const verify = cacheVerifier(verifier, { maxEntries: 10, maxAge: 0 });
    const [first, second] = await Promise.all([verify('shared-token'), verify('shared-token')]);
    try {
      (first as { scopes: readonly string[] }).scopes = ['me', 'admin'];
    } catch {
      // refused: the principal is frozen
    }
    expect(second.scopes).toEqual(['me']);
  });
});
