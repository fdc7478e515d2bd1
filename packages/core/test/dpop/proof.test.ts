/**
 * docs/contract.md#dpop: each check of RFC 9449 §4.3, one by one, against proofs jose signs.
 */
import { SignJWT, base64url } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMPACT_SLACK, DEADLINES_HELD } from '../../src/dpop/replay-store.js';
import { accessTokenHash, dpopNonces, dpopProofVerifier, memoryReplayStore, type DPoPCheck } from '../../src/dpop/index.js';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';

const URL_ = 'https://api.example.com/trpc/me';
const TOKEN = 'an-access-token';
const NOW = 1_800_000_000;
const now = () => NOW;

let key: ProofKey;
let other: ProofKey;
beforeAll(async () => {
  key = await proofKey('ES256');
  other = await proofKey('ES256');
});

const refusedWith = (checked: DPoPCheck) => (checked.ok ? 'accepted' : checked.refusal.description);

describe('dpopProofVerifier', () => {
  it('accepts a proof that passes every check, and names its key thumbprint', async () => {
    const verify = dpopProofVerifier({ now });
    const proof = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    const checked = await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    const { calculateJwkThumbprint } = await import('jose');
    expect(checked.proof.jkt).toBe(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
    expect(checked.proof.alg).toBe('ES256');
  });

  // RFC 7515 §4.1.9: a typ without a '/' is read with 'application/' before it, so both spellings
  // name one type; media types compare case-insensitively.
  it.each(['dpop+jwt', 'DPoP+JWT', 'application/dpop+jwt', 'Application/DPoP+jwt'])('accepts the proof type written %s', async (typ) => {
    const verify = dpopProofVerifier({ now });
    const proof = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, header: { typ } });
    expect((await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN })).ok).toBe(true);
  });

  it.each(['application/jwt', 'text/dpop+jwt', 'application/dpop+jwt; x=1', 'dpop+jwt '])('refuses the proof type %s', async (typ) => {
    const verify = dpopProofVerifier({ now });
    const proof = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, header: { typ } });
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('The DPoP proof type must be dpop+jwt');
  });

  // A verifier keeps the keys it imported: a proof is still checked against its own header's key,
  // whatever keys were seen before, in whatever member order.
  it('checks each proof against its own key, whatever keys it has imported before', async () => {
    const verify = dpopProofVerifier({ now });
    const sign = (signer: ProofKey, header?: { jwk: unknown }) =>
      signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, signer, ...(header ? { header } : {}) });
    expect((await verify({ method: 'GET', url: URL_, proof: await sign(key), accessToken: TOKEN })).ok).toBe(true);
    // key's jwk in the header (imported above), signed by other: refused.
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof: await sign(other), accessToken: TOKEN }))).toBe('The DPoP proof signature or key is invalid');
    // The same key with its members in another order is the same key, and names the same thumbprint.
    const reordered = Object.fromEntries(Object.entries(key.publicJwk).reverse());
    const checked = await verify({ method: 'GET', url: URL_, proof: await sign(key, { jwk: reordered }), accessToken: TOKEN });
    const { calculateJwkThumbprint } = await import('jose');
    expect(checked.ok && checked.proof.jkt).toBe(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
    // other's own proof after: accepted, with other's thumbprint.
    const own = await signProof(other, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    const checkedOther = await verify({ method: 'GET', url: URL_, proof: own, accessToken: TOKEN });
    expect(checkedOther.ok && checkedOther.proof.jkt).toBe(await calculateJwkThumbprint(other.publicJwk, 'sha256'));
  });

  it('computes ath as RFC 9449 §4.2 shows', async () => {
    // The example of RFC 9449 §7.1.
    expect(await accessTokenHash('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU')).toBe('fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo');
  });

  it.each([
    ['no proof', undefined, 'A DPoP proof is required'],
    ['an empty proof', '', 'A DPoP proof is required'],
    ['two DPoP headers', 'a.b.c, d.e.f', 'Exactly one DPoP header is allowed'],
    ['not a JWT', 'not-a-jwt', 'The DPoP proof is not a compact JWT'],
    ['an overlong proof', `${'a'.repeat(9000)}.b.c`, 'The DPoP proof is too long'],
    ['a header that is not JSON', `${base64url.encode('{')}.e30.c2ln`, 'The DPoP proof header is not valid JSON'],
  ])('refuses %s', async (_, proof, reason) => {
    const verify = dpopProofVerifier({ now });
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe(reason);
  });

  const cases: [string, () => Promise<{ proof: string; method?: string; url?: string; accessToken?: string }>, string][] = [
    ['another typ', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, header: { typ: 'JWT' } }) }), 'The DPoP proof type must be dpop+jwt'],
    ['no typ', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, header: { typ: undefined } }) }), 'The DPoP proof type must be dpop+jwt'],
    [
      'a symmetric algorithm',
      async () => ({
        proof: await new SignJWT({ htm: 'GET', htu: URL_, iat: NOW, jti: 'j', ath: await accessTokenHash(TOKEN) })
          .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: base64url.encode(new Uint8Array(32)) } as never })
          .sign(new Uint8Array(32)),
      }),
      'The DPoP proof algorithm is not accepted',
    ],
    ['no jwk', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, header: { jwk: undefined } }) }), 'The DPoP proof header has no public jwk'],
    ['a private jwk', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, header: { jwk: key.privateJwk } }) }), 'The DPoP proof jwk must be a public key'],
    ['a signature by another key', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, signer: other }) }), 'The DPoP proof signature or key is invalid'],
    ['another method', async () => ({ proof: await signProof(key, { method: 'POST', url: URL_, accessToken: TOKEN, iat: NOW }) }), 'The DPoP proof htm does not match the request method'],
    ['a lower-case method', async () => ({ proof: await signProof(key, { method: 'get', url: URL_, accessToken: TOKEN, iat: NOW }) }), 'The DPoP proof htm does not match the request method'],
    ['another path', async () => ({ proof: await signProof(key, { method: 'GET', url: 'https://api.example.com/trpc/items', accessToken: TOKEN, iat: NOW }) }), 'The DPoP proof htu does not match the request URL'],
    ['another host', async () => ({ proof: await signProof(key, { method: 'GET', url: 'https://evil.example.com/trpc/me', accessToken: TOKEN, iat: NOW }) }), 'The DPoP proof htu does not match the request URL'],
    ['another scheme', async () => ({ proof: await signProof(key, { method: 'GET', url: 'http://api.example.com/trpc/me', accessToken: TOKEN, iat: NOW }) }), 'The DPoP proof htu does not match the request URL'],
    ['another port', async () => ({ proof: await signProof(key, { method: 'GET', url: 'https://api.example.com:8443/trpc/me', accessToken: TOKEN, iat: NOW }) }), 'The DPoP proof htu does not match the request URL'],
    ['an htu that is not a URL', async () => ({ proof: await signProof(key, { method: 'GET', url: '/trpc/me', accessToken: TOKEN, iat: NOW }) }), 'The DPoP proof htu does not match the request URL'],
    ['a stale iat', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW - 61 }) }), 'The DPoP proof is too old'],
    ['a future iat', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW + 11 }) }), 'The DPoP proof is issued in the future'],
    ['no iat', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, claims: { iat: undefined } }) }), 'The DPoP proof has no iat'],
    ['no jti', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, claims: { jti: undefined } }) }), 'The DPoP proof has no valid jti'],
    ['an overlong jti', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW, jti: 'j'.repeat(257) }) }), 'The DPoP proof has no valid jti'],
    ['no ath', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, iat: NOW }) }), 'The DPoP proof ath does not match the access token'],
    ['another token\'s ath', async () => ({ proof: await signProof(key, { method: 'GET', url: URL_, accessToken: 'another', iat: NOW }) }), 'The DPoP proof ath does not match the access token'],
  ];
  it.each(cases)('refuses %s', async (_, build, reason) => {
    const verify = dpopProofVerifier({ now });
    const { proof } = await build();
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe(reason);
  });

  it('normalizes htu per RFC 3986 and ignores query and fragment', async () => {
    const verify = dpopProofVerifier({ now });
    const proof = await signProof(key, { method: 'GET', url: 'HTTPS://API.example.com:443/trpc/./me?x=1#f', accessToken: TOKEN, iat: NOW });
    expect((await verify({ method: 'GET', url: `${URL_}?input=%7B%7D`, proof, accessToken: TOKEN })).ok).toBe(true);
  });

  it('accepts only the pinned algorithms', async () => {
    const es384 = await proofKey('ES384');
    const verify = dpopProofVerifier({ now, algorithms: ['ES256'] });
    const proof = await signProof(es384, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('The DPoP proof algorithm is not accepted');
    expect((await dpopProofVerifier({ now, algorithms: ['ES384'] })({ method: 'GET', url: URL_, proof, accessToken: TOKEN })).ok).toBe(true);
    expect(() => dpopProofVerifier({ algorithms: ['HS256' as 'ES256'] })).toThrow(TypeError);
    expect(() => dpopProofVerifier({ algorithms: [] })).toThrow(TypeError);
  });

  it('accepts EdDSA and RSA-PSS keys', async () => {
    for (const alg of ['EdDSA', 'PS256']) {
      const k = await proofKey(alg);
      const proof = await signProof(k, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
      expect((await dpopProofVerifier({ now })({ method: 'GET', url: URL_, proof, accessToken: TOKEN })).ok).toBe(true);
    }
  });

  it('accepts a proof once: the same jti is a replay, through a store shared by two verifiers too', async () => {
    const replay = memoryReplayStore({ now });
    const a = dpopProofVerifier({ now, replay });
    const b = dpopProofVerifier({ now, replay });
    const proof = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    expect((await a({ method: 'GET', url: URL_, proof, accessToken: TOKEN })).ok).toBe(true);
    expect(refusedWith(await a({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('The DPoP proof was already used');
    expect(refusedWith(await b({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('The DPoP proof was already used');
  });

  it('does not need ath at a token endpoint (no access token presented)', async () => {
    const proof = await signProof(key, { method: 'POST', url: 'https://as.example.com/token', iat: NOW });
    expect((await dpopProofVerifier({ now })({ method: 'POST', url: 'https://as.example.com/token', proof })).ok).toBe(true);
  });

  describe('with server nonces', () => {
    const secret = 'a-secret-of-at-least-thirty-two-bytes!!';

    it('asks for a nonce when the proof has none, with a fresh one', async () => {
      const nonces = dpopNonces({ secret, now });
      const verify = dpopProofVerifier({ now, nonces });
      const proof = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
      const checked = await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN });
      expect(checked).toEqual({ ok: false, refusal: { error: 'use_dpop_nonce', description: 'A DPoP nonce is required', nonce: await nonces.current() } });
    });

    it('accepts the current and the previous step, refuses older and forged ones', async () => {
      let time = NOW;
      const clock = () => time;
      const nonces = dpopNonces({ secret, now: clock, step: 300 });
      const verify = dpopProofVerifier({ now: clock, nonces });
      const issued = await nonces.current();
      const call = async () => verify({ method: 'GET', url: URL_, proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: time, nonce: issued }), accessToken: TOKEN });
      expect((await call()).ok).toBe(true);
      time += 300;
      expect((await call()).ok).toBe(true);
      time += 300;
      const stale = await call();
      expect(stale.ok ? undefined : stale.refusal).toMatchObject({ error: 'use_dpop_nonce', description: 'The DPoP nonce is stale' });
      const forged = await verify({ method: 'GET', url: URL_, proof: await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: time, nonce: 'forged' }), accessToken: TOKEN });
      expect(forged.ok).toBe(false);
    });

    it('is checkable by another instance given the same secret, and by no other', async () => {
      const a = dpopNonces({ secret, now });
      const b = dpopNonces({ secret, now });
      const c = dpopNonces({ secret: `${secret}-other`, now });
      expect(await b.check(await a.current())).toBe(true);
      expect(await c.check(await a.current())).toBe(false);
      expect(() => dpopNonces({ secret: 'short' })).toThrow(TypeError);
    });
  });
});

describe('memoryReplayStore', () => {
  it('forgets an identifier once its window passed, and holds at most maxEntries', async () => {
    let time = 100;
    const store = memoryReplayStore({ now: () => time, maxEntries: 2 });
    expect(await store.use('a', 110)).toBe(true);
    expect(await store.use('a', 110)).toBe(false);
    time = 111;
    expect(await store.use('a', 120)).toBe(true);
    expect(await store.use('b', 120)).toBe(true);
    // Full of live entries: the new one is refused, never a live one evicted (its proof would replay).
    expect(await store.use('c', 120)).toBe(false);
    expect(await store.use('a', 120)).toBe(false);
    expect(await store.use('b', 120)).toBe(false);
    time = 120;
    expect(await store.use('c', 130)).toBe(true);
    expect(() => memoryReplayStore({ maxEntries: 0 })).toThrow(TypeError);
  });

  it('expires each entry at its own deadline, whatever order they came in', async () => {
    let time = 100;
    const store = memoryReplayStore({ now: () => time, maxEntries: 3 });
    // Proofs carry their own iat: the first to come is not the first to expire.
    expect(await store.use('late', 200)).toBe(true);
    expect(await store.use('early', 110)).toBe(true);
    expect(await store.use('middle', 150)).toBe(true);
    time = 111;
    expect(await store.use('new', 300)).toBe(true); // 'early' made room
    expect(await store.use('late', 200)).toBe(false);
    expect(await store.use('middle', 150)).toBe(false);
    expect(await store.use('early', 210)).toBe(false); // full again: refused, not recorded
    time = 151;
    expect(await store.use('early', 210)).toBe(true); // 'middle' made room
    expect(await store.use('middle', 250)).toBe(false); // full: 'late', 'new' and 'early' live
    time = 201;
    expect(await store.use('middle', 250)).toBe(true);
    expect(await store.use('late', 260)).toBe(false); // full of 'new', 'early', 'middle'
    time = 211;
    expect(await store.use('late', 260)).toBe(true);
  });

  it("holds at most maxEntriesPerKey of one holder's entries, and frees them as they expire", async () => {
    let time = 100;
    const store = memoryReplayStore({ now: () => time, maxEntries: 10, maxEntriesPerKey: 2 });
    expect(await store.use('a.1', 110, 'a')).toBe(true);
    expect(await store.use('a.2', 120, 'a')).toBe(true);
    // The third of `a`'s is refused, though the store has room: another holder's is not.
    expect(await store.use('a.3', 120, 'a')).toBe(false);
    expect(await store.use('b.1', 120, 'b')).toBe(true);
    expect(await store.use('b.2', 120, 'b')).toBe(true);
    // Entries given without a holder count against the store only.
    for (let i = 0; i < 4; i++) expect(await store.use(`anonymous.${i}`, 120)).toBe(true);
    // A refusal took no room: `a` still holds two, and a replay of them is refused as before.
    expect(await store.use('a.1', 130, 'a')).toBe(false);
    time = 110;
    // `a.1` expired: `a` has room for one more, and `a.3`, refused before, is taken now.
    expect(await store.use('a.3', 130, 'a')).toBe(true);
    expect(await store.use('a.4', 130, 'a')).toBe(false);
    time = 120;
    // `a.2` expired too: `a` holds `a.3` alone.
    expect(await store.use('a.4', 130, 'a')).toBe(true);
    expect(await store.use('a.5', 130, 'a')).toBe(false);
  });

  it("tells whether it would refuse an identifier now (held, full, or the holder's share taken), recording nothing", async () => {
    let time = 100;
    const store = memoryReplayStore({ now: () => time, maxEntries: 3, maxEntriesPerKey: 2 });
    expect(await store.wouldRefuse!('a.1', 'a')).toBe(false);
    expect(await store.use('a.1', 110, 'a')).toBe(true);
    expect(await store.wouldRefuse!('a.1', 'a')).toBe(true);
    expect(await store.wouldRefuse!('a.2', 'a')).toBe(false);
    expect(await store.use('a.2', 120, 'a')).toBe(true);
    // `a`'s share is taken; `b` still has room.
    expect(await store.wouldRefuse!('a.3', 'a')).toBe(true);
    expect(await store.wouldRefuse!('b.1', 'b')).toBe(false);
    expect(await store.use('b.1', 120, 'b')).toBe(true);
    // Full: every new identifier is refused, whoever holds it.
    expect(await store.wouldRefuse!('c.1', 'c')).toBe(true);
    // Looking took no room and kept nothing alive: once `a.1` expires, `c` gets its place.
    time = 110;
    expect(await store.wouldRefuse!('a.1', 'a')).toBe(false);
    expect(await store.wouldRefuse!('c.1', 'c')).toBe(false);
    expect(await store.use('c.1', 130, 'c')).toBe(true);
  });

  it('forgets an identifier as it was recorded, giving its holder its room back, and nothing else', async () => {
    const time = 100;
    const store = memoryReplayStore({ now: () => time, maxEntries: 10, maxEntriesPerKey: 1 });
    expect(await store.use('a.1', 110, 'a')).toBe(true);
    expect(await store.use('a.2', 110, 'a')).toBe(false);
    // Another deadline than the one recorded: kept.
    await store.release!('a.1', 111, 'a');
    expect(await store.use('a.1', 110, 'a')).toBe(false);
    await store.release!('a.1', 110, 'a');
    // Forgotten: the same identifier may be recorded again, and `a` has its room back.
    expect(await store.wouldRefuse!('a.1', 'a')).toBe(false);
    expect(await store.use('a.2', 110, 'a')).toBe(true);
    expect(await store.use('a.1', 110, 'a')).toBe(false);
    // An identifier never recorded: nothing changes.
    await store.release!('b.1', 110, 'b');
    expect(await store.use('b.1', 110, 'b')).toBe(true);
  });

  it('keeps no deadline of the identifiers it forgot past twice what it holds: 200 000 recorded and forgotten within one window', () => {
    let time = 1_000;
    const store = memoryReplayStore({ maxEntries: 1_000, now: () => time }) as ReturnType<typeof memoryReplayStore> & { [DEADLINES_HELD]: () => number };
    const holder = 'h'.repeat(43);
    let recorded = 0;
    let most = 0;
    // A few live ones, then failed requests' proofs, each recorded and forgotten.
    for (let i = 0; i < 10; i++) store.use(`${holder}.live-${i}`, 1_060, holder);
    for (let i = 0; i < 200_000; i++) {
      const key = `${holder}.${i}`;
      if (store.use(key, 1_060, holder)) recorded++;
      store.release!(key, 1_060, holder);
      most = Math.max(most, store[DEADLINES_HELD]());
    }
    expect(recorded).toBe(200_000);
    // Each forgotten key's deadline was kept until it passed: 200 010 of them here.
    expect(most).toBeLessThanOrEqual(2 * 10 + COMPACT_SLACK + 1);
    // The live ones are still held, and a forgotten identifier may be recorded again, once.
    expect(store.use(`${holder}.live-3`, 1_060, holder)).toBe(false);
    expect(store.use(`${holder}.7`, 1_060, holder)).toBe(true);
    expect(store.use(`${holder}.7`, 1_060, holder)).toBe(false);
    // The deadlines kept still expire what they stand for, and only that.
    time = 1_060;
    expect(store.use(`${holder}.live-3`, 1_200, holder)).toBe(true);
    expect(store.use(`${holder}.7`, 1_200, holder)).toBe(true);
    expect(store[DEADLINES_HELD]()).toBe(2);
  });

  it('gives one holder a tenth of maxEntries by default, at least one entry', async () => {
    const time = 100;
    const store = memoryReplayStore({ now: () => time, maxEntries: 50 });
    for (let i = 0; i < 5; i++) expect(await store.use(`a.${i}`, 200, 'a')).toBe(true);
    expect(await store.use('a.5', 200, 'a')).toBe(false);
    const tiny = memoryReplayStore({ now: () => time, maxEntries: 3 });
    expect(await tiny.use('a.0', 200, 'a')).toBe(true);
    expect(await tiny.use('a.1', 200, 'a')).toBe(false);
    expect(await tiny.use('b.0', 200, 'b')).toBe(true);
    for (const maxEntriesPerKey of [0, -1, 1.5, Number.NaN]) expect(() => memoryReplayStore({ maxEntriesPerKey })).toThrow(TypeError);
  });

  it('keeps the deadline order over many entries', async () => {
    let time = 0;
    const store = memoryReplayStore({ now: () => time, maxEntries: 1000 });
    // 1000 entries with shuffled deadlines 1..1000: at time t, exactly the t earliest are gone.
    const deadlines = Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 1000) + 1);
    for (const [i, deadline] of deadlines.entries()) expect(await store.use(`k${i}`, deadline)).toBe(true);
    expect(await store.use('extra', 5000)).toBe(false);
    time = 500;
    for (let i = 0; i < 500; i++) expect(await store.use(`n${i}`, 5000)).toBe(true);
    expect(await store.use('extra', 5000)).toBe(false);
    for (const [i, deadline] of deadlines.entries()) if (deadline > 500) expect(await store.use(`k${i}`, 9999)).toBe(false);
  });
});

/**
 * docs/contract.md#dpop, replay store: with the default store full of other clients' proofs, a
 * captured proof is refused as before; the store refuses new proofs rather than forget one.
 */
describe('a full replay store', () => {
  it('never lets a captured proof replay: a flood is refused instead of evicting the victim', async () => {
    // One flooding key may take the whole store here, to fill it.
    const verify = dpopProofVerifier({ now, replay: memoryReplayStore({ now, maxEntries: 50, maxEntriesPerKey: 50 }) });
    const victim = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    expect((await verify({ method: 'GET', url: URL_, proof: victim, accessToken: TOKEN })).ok).toBe(true);
    const flood = await Promise.all(Array.from({ length: 60 }, () => signProof(other, { method: 'GET', url: URL_, accessToken: 'junk', iat: NOW })));
    const answers = [];
    for (const proof of flood) answers.push(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: 'junk' })));
    expect(answers.filter((answer) => answer === 'accepted')).toHaveLength(49);
    expect(answers.slice(49)).toEqual(Array(11).fill('The DPoP proof was already used'));
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof: victim, accessToken: TOKEN }))).toBe('The DPoP proof was already used');
  });

  it("stops one key's flood at its share of the store: another key's proofs are still accepted", async () => {
    const verify = dpopProofVerifier({ now, replay: memoryReplayStore({ now, maxEntries: 50 }) });
    const flood = await Promise.all(Array.from({ length: 20 }, () => signProof(other, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW })));
    const answers = [];
    for (const proof of flood) answers.push(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN })));
    expect(answers).toEqual([...Array(5).fill('accepted'), ...Array(15).fill('The DPoP proof was already used')]);
    for (let i = 0; i < 5; i++) {
      const proof = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
      expect(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('accepted');
    }
  });

  it('with recordLater, records nothing until record() is called, and record() refuses a replay', async () => {
    const verify = dpopProofVerifier({ now });
    const proof = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: NOW });
    const first = await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN, recordLater: true });
    const second = await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN, recordLater: true });
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    expect(await first.record!()).toBeUndefined();
    expect(await second.record!()).toEqual({ error: 'invalid_dpop_proof', description: 'The DPoP proof was already used' });
    expect(refusedWith(await verify({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('The DPoP proof was already used');
  });
});

/**
 * docs/contract.md#dpop, `htu`: RFC 9449 §4.3 asks for RFC 3986 §6.2.2 syntax-based
 * normalization of both URLs; WHATWG parsing already does case and dot segments, not
 * percent-encoding. An htu with userinfo names no request.
 */
describe('htu normalization', () => {
  it.each([
    ['a percent-encoded unreserved ~ against ~', 'https://api.example.com/a%7Eb', 'https://api.example.com/a~b'],
    ['~ against a percent-encoded ~', 'https://api.example.com/a~b', 'https://api.example.com/a%7Eb'],
    ['lower-case hex against upper-case hex', 'https://api.example.com/a%7eb', 'https://api.example.com/a%7Eb'],
    ['a percent-encoded ALPHA', 'https://api.example.com/%61pi', 'https://api.example.com/api'],
    ['percent-encoded DIGIT, -, . and _', 'https://api.example.com/v%31%2D%2e%5F', 'https://api.example.com/v1-._'],
    ['a reserved character, encoded in either case', 'https://api.example.com/a%2fb', 'https://api.example.com/a%2Fb'],
    ['a non-ASCII character, encoded in either case', 'https://api.example.com/caf%c3%a9', 'https://api.example.com/caf%C3%A9'],
    ['a non-ASCII character against its encoding', 'https://api.example.com/café', 'https://api.example.com/caf%C3%A9'],
    ['scheme and host case, a default port', 'HTTPS://API.Example.COM:443/trpc/me', URL_],
    ['dot segments', 'https://api.example.com/trpc/x/../me', URL_],
    ['an @ in the path, query or fragment (no userinfo)', 'https://api.example.com/trpc/me?a=@b#@c', 'https://api.example.com/trpc/me'],
    ['an @ in the path', 'https://api.example.com/a@b', 'https://api.example.com/a@b'],
  ])('accepts %s', async (_, htu, url) => {
    const proof = await signProof(key, { method: 'GET', url: htu, accessToken: TOKEN, iat: NOW });
    expect(refusedWith(await dpopProofVerifier({ now })({ method: 'GET', url, proof, accessToken: TOKEN }))).toBe('accepted');
  });

  it.each([
    ['an encoded / against /', 'https://api.example.com/a%2Fb', 'https://api.example.com/a/b'],
    ['an encoded ? against a path', 'https://api.example.com/a%3Fb', 'https://api.example.com/a?b'],
    ['another path', 'https://api.example.com/%62pi', 'https://api.example.com/api'],
  ])('refuses %s', async (_, htu, url) => {
    const proof = await signProof(key, { method: 'GET', url: htu, accessToken: TOKEN, iat: NOW });
    expect(refusedWith(await dpopProofVerifier({ now })({ method: 'GET', url, proof, accessToken: TOKEN }))).toBe('The DPoP proof htu does not match the request URL');
  });

  // An empty userinfo is userinfo too (RFC 3986 §3.2: its `@` delimits it; RFC 9110 §4.2.4 forbids
  // both), though the URL parser drops it: `https://@host/` parses as `https://host/`.
  it.each([
    'https://user@api.example.com/trpc/me',
    'https://user:secret@api.example.com/trpc/me',
    'https://:secret@api.example.com/trpc/me',
    'https://@api.example.com/trpc/me',
    'https://:@api.example.com/trpc/me',
    'HTTPS:\\\\@api.example.com/trpc/me',
    ' https://\t@api.example.com/trpc/me',
  ])(
    'refuses an htu with userinfo: %s',
    async (htu) => {
      const proof = await signProof(key, { method: 'GET', url: htu, accessToken: TOKEN, iat: NOW });
      expect(refusedWith(await dpopProofVerifier({ now })({ method: 'GET', url: URL_, proof, accessToken: TOKEN }))).toBe('The DPoP proof htu must not carry userinfo');
    },
  );
});

// On runtimes without `node:crypto` (workers, edge functions) `ath` is WebCrypto's digest: the
// module loaded there must give the same hash as Node's one-shot path.
describe('accessTokenHash without node:crypto', () => {
  it('gives RFC 9449 §7.1’s ath through WebCrypto', async () => {
    const { vi } = await import('vitest');
    const builtin = process.getBuiltinModule;
    vi.resetModules();
    (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
    try {
      const { accessTokenHash: webHash } = await import('../../src/dpop/proof.js');
      expect(webHash).not.toBe(accessTokenHash); // a fresh instance of the module, loaded without node:crypto
      expect(await webHash('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU')).toBe('fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo');
    } finally {
      process.getBuiltinModule = builtin;
      vi.resetModules();
    }
  });
});
