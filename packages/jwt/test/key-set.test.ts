// The key set in production conditions, against a real JWKS server on 127.0.0.1 that rotates its
// keys and fails: what it fetches, when, and what each verification answers
// (docs/contract.md#reading-the-authorization-header).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TOKEN_REFUSALS, type JwtJwksOptions } from '../src/index.js';
import { outcomeOf, refusalOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}
const signingKey = async (kid: string): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
};
const tokenOf = (key: SigningKey, withKid = true) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'read', exp: now + 3600 })
    .setProtectedHeader(withKid ? { alg: 'ES256', kid: key.kid } : { alg: 'ES256' })
    .sign(key.privateKey);
};

/**
 * A key set endpoint that publishes `published`, answers 500 while `failing`, holds its answers
 * while `hanging` (until `release`), and counts the requests it received.
 */
let server: Server;
let url: string;
let published: SigningKey[] = [];
let failing = false;
let hanging = false;
let held: ServerResponse[] = [];
let served = 0;
const answer = (res: ServerResponse) => {
  if (failing) {
    res.writeHead(500).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map((key) => key.jwk) }));
};
/** Answers every held request with what the endpoint serves now. */
const release = () => {
  for (const res of held) answer(res);
  held = [];
};
beforeAll(async () => {
  server = createServer((_req, res) => {
    served++;
    if (hanging) held.push(res);
    else answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  vi.useRealTimers();
  failing = false;
  hanging = false;
  release();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A token no key signed, with a kid never published: what anyone can send. */
const forgedWithKid = `${Buffer.from('{"alg":"ES256","kid":"forged"}').toString('base64url')}.e30.AAAA`;

/** Moves the clock the key set reads (Date) forward; the network keeps real time. */
const advance = (ms: number) => {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  vi.setSystemTime(Date.now() + ms);
};

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  let first: SigningKey;
  let second: SigningKey;
  let third: SigningKey;
  beforeAll(async () => {
    [first, second, third] = await Promise.all([signingKey('k1'), signingKey('k2'), signingKey('k3')]);
  });
  const verifierOf = (options: Partial<JwtJwksOptions> = {}) =>
    jwtVerifier({ jwksUrl: url, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE, ...options });

  it('verifies the first token of a rotated key at once, with one fetch shared by concurrent tokens', async () => {
    published = [first];
    const verify = verifierOf({ cooldownDuration: 60_000 });
    const start = served;
    expect((await verify(await tokenOf(first))).subject).toBe('alice');
    expect((await verify(await tokenOf(first))).subject).toBe('alice');
    expect(served - start).toBe(1);

    published = [second, first]; // the server rotates
    expect((await verify(await tokenOf(second))).subject).toBe('alice');
    expect(served - start).toBe(2);

    // Rotated again at once: this refetch waits for minRefetchInterval (1 s) after the last one.
    published = [third, second, first];
    const tokens = await Promise.all(Array.from({ length: 8 }, () => tokenOf(third)));
    const principals = await Promise.all(tokens.map((token) => verify(token)));
    expect(principals.map((principal) => principal.subject)).toEqual(Array(8).fill('alice'));
    expect(served - start).toBe(3); // eight tokens with a new kid, one fetch
    expect((await verify(await tokenOf(first))).subject).toBe('alice');
    expect(served - start).toBe(3);
  });

  it('verifies the first token of a rotated key without a kid at once too, and refetches for such tokens once per cooldownDuration', async () => {
    published = [first];
    const verify = verifierOf({ cooldownDuration: 30_000 });
    const start = served;
    expect((await verify(await tokenOf(first, false))).subject).toBe('alice');
    expect(served - start).toBe(1);

    published = [second, first]; // the server rotates; its tokens name no kid
    expect((await verify(await tokenOf(second, false))).subject).toBe('alice');
    expect(served - start).toBe(2);

    // Forged tokens without a kid: refused, with no further fetch within cooldownDuration.
    const forged = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.e30.AAAA`;
    for (let i = 0; i < 5; i++) expect(await refusalOf(verify(forged))).toBe(TOKEN_REFUSALS.unknownKey);
    published = [third, second, first];
    expect(await refusalOf(verify(await tokenOf(third, false)))).toBe(TOKEN_REFUSALS.unknownKey);
    expect(served - start).toBe(2);
    advance(30_001);
    expect((await verify(await tokenOf(third, false))).subject).toBe('alice');
    expect(served - start).toBe(3);
  });

  // `kid: ""` is a kid (jose's look-up matches it to a key whose kid is empty, and to no other):
  // whatever was verified before, a token naming it is answered as on a fresh verifier.
  it('answers a token with an empty kid the same whatever came before it, a token without a kid included', async () => {
    published = [first];
    const emptyKid = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', exp: Math.floor(Date.now() / 1000) + 3600 })
      .setProtectedHeader({ alg: 'ES256', kid: '' })
      .sign(first.privateKey);
    const fresh = await outcomeOf(verifierOf()(emptyKid));
    expect(fresh).toMatchObject({ kind: 'refused', description: TOKEN_REFUSALS.unknownKey });
    const verify = verifierOf();
    expect((await verify(await tokenOf(first, false))).subject).toBe('alice');
    expect(await outcomeOf(verify(emptyKid))).toEqual(fresh);
    // And the other way round: a token without a kid is not refused for the empty kid's cooldown.
    const other = verifierOf({ cooldownDuration: 60_000 });
    expect(await outcomeOf(other(emptyKid))).toEqual(fresh);
    expect((await other(await tokenOf(first, false))).subject).toBe('alice');
  });

  // An API that takes two issuers' tokens (anyOf), or gets tokens meant for another API: another
  // issuer's kids are never in this set, so looking for them would refetch it once per
  // cooldownDuration for each (docs/contract.md#reading-the-authorization-header).
  it("refuses another issuer's tokens without fetching the key set, whatever their kid", async () => {
    published = [first];
    const foreign = async (key: SigningKey, withKid: boolean) =>
      new SignJWT({ iss: 'https://other.example', aud: AUDIENCE, sub: 'alice', exp: Math.floor(Date.now() / 1000) + 3600 })
        .setProtectedHeader(withKid ? { alg: 'ES256', kid: key.kid } : { alg: 'ES256' })
        .sign(key.privateKey);
    const verify = verifierOf({ cooldownDuration: 0, minRefetchInterval: 0 });
    const start = served;
    // Before the set was ever fetched, signed by a key the set does not hold, with and without a kid.
    for (const token of [await foreign(third, true), await foreign(third, false)]) {
      expect(await refusalOf(verify(token))).toBe(TOKEN_REFUSALS.issuer);
    }
    expect(served - start).toBe(0);
    expect((await verify(await tokenOf(first))).subject).toBe('alice');
    expect(served - start).toBe(1);
    // Many kids, none published, with no cooldown to hold back a refetch: still none.
    for (const kid of ['a', 'b', 'c', 'd']) expect(await refusalOf(verify(await foreign({ ...third, kid }, true)))).toBe(TOKEN_REFUSALS.issuer);
    // Signed by the issuer's own key: its `iss` still decides.
    expect(await refusalOf(verify(await foreign(first, true)))).toBe(TOKEN_REFUSALS.issuer);
    expect(served - start).toBe(1);
    // The issuer's tokens with a kid the set lacks are looked for as before.
    expect(await refusalOf(verify(await tokenOf(third)))).toBe(TOKEN_REFUSALS.unknownKey);
    expect(served - start).toBe(2);
  });

  it('refetches for a kid it already looked for in vain only after cooldownDuration', async () => {
    published = [first];
    const verify = verifierOf({ cooldownDuration: 30_000 });
    const start = served;
    await verify(await tokenOf(first));
    const stranger = await tokenOf(third); // never published
    expect(await refusalOf(verify(stranger))).toBe(TOKEN_REFUSALS.unknownKey);
    expect(served - start).toBe(2); // looked for at once
    for (let i = 0; i < 5; i++) expect(await refusalOf(verify(stranger))).toBe(TOKEN_REFUSALS.unknownKey);
    expect(served - start).toBe(2); // then no fetch storm
    advance(30_001);
    expect(await refusalOf(verify(stranger))).toBe(TOKEN_REFUSALS.unknownKey);
    expect(served - start).toBe(3);
  });

  it('does not retry a failing key set on every request: 503 at once until failureCooldownDuration has passed', async () => {
    published = [first];
    failing = true;
    const verify = verifierOf({ failureCooldownDuration: 5_000 });
    const token = await tokenOf(first);
    const start = served;
    for (let i = 0; i < 6; i++) expect(await outcomeOf(verify(token))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
    expect(served - start).toBe(1);
    advance(5_001);
    expect(await outcomeOf(verify(token))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
    expect(served - start).toBe(2);
    failing = false; // back up: the next fetch after the back-off serves
    advance(5_001);
    expect((await verify(token)).subject).toBe('alice');
    expect(served - start).toBe(3);
  });

  it('keeps verifying known keys past cacheMaxAge while the set is down (stale-if-error), for a bounded time, then answers 503', async () => {
    published = [first];
    const verify = verifierOf({ cacheMaxAge: 60_000, staleIfErrorDuration: 120_000, failureCooldownDuration: 5_000 });
    const token = await tokenOf(first);
    const start = served;
    await verify(token);
    failing = true;

    advance(60_001); // the set is stale: refetched, the fetch fails, the known key still verifies
    expect((await verify(token)).subject).toBe('alice');
    await vi.waitFor(() => expect(served - start).toBe(2));
    for (let i = 0; i < 5; i++) expect((await verify(token)).subject).toBe('alice');
    expect(served - start).toBe(2); // within the back-off: no new fetch
    // A kid the stale set lacks cannot be looked up: 503, not a 401 that blames the token.
    expect(await outcomeOf(verify(await tokenOf(second)))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });

    advance(60_000); // still within cacheMaxAge + staleIfErrorDuration
    expect((await verify(token)).subject).toBe('alice');
    // A token with a kid the set lacks waits for that refetch (and starts none): once it answers,
    // the refetch has failed, and is not one the next verification joins.
    expect(await outcomeOf(verify(await tokenOf(third)))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
    expect(served - start).toBe(3);

    advance(60_000); // past it: the stale keys are no longer trusted
    expect(await outcomeOf(verify(token))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
    expect(served - start).toBe(4);

    failing = false;
    advance(5_001);
    expect((await verify(token)).subject).toBe('alice');
    expect(served - start).toBe(5);
  });

  it('answers from the known keys at once while the refetch past cacheMaxAge hangs, and trusts only what that refetch brings once it lands', async () => {
    published = [first];
    const verify = verifierOf({ cacheMaxAge: 60_000, timeoutDuration: 30_000 });
    const token = await tokenOf(first);
    const start = served;
    await verify(token);
    hanging = true;

    advance(60_001);
    // Not one of these waits for the key set, which holds its answer for the whole timeout.
    const waited = Symbol('waited for the key set');
    for (let i = 0; i < 5; i++) {
      const outcome = await Promise.race([verify(token), new Promise((resolve) => setTimeout(resolve, 1_000, waited))]);
      expect(outcome).toMatchObject({ subject: 'alice' });
    }
    await vi.waitFor(() => expect(held).toHaveLength(1)); // one refetch on the wire for all of them
    expect(served - start).toBe(2);

    // It lands: the server rotated `first` out. Its tokens are refused from then on, the new key's verified.
    published = [second];
    hanging = false;
    release();
    await vi.waitFor(async () => expect(await refusalOf(verify(token))).toBe(TOKEN_REFUSALS.unknownKey), { timeout: 4_000 });
    expect((await verify(await tokenOf(second))).subject).toBe('alice');
  });

  it('waits for the refetch once the known keys are past cacheMaxAge + staleIfErrorDuration', async () => {
    published = [first];
    const verify = verifierOf({ cacheMaxAge: 60_000, staleIfErrorDuration: 0, timeoutDuration: 30_000 });
    const token = await tokenOf(first);
    await verify(token);
    hanging = true;
    advance(60_001);
    let settled = false;
    const verification = verify(token).finally(() => {
      settled = true;
    });
    await vi.waitFor(() => expect(held).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false); // the stale keys are not trusted: it waits for the set
    published = [second];
    hanging = false;
    release();
    expect(await refusalOf(verification)).toBe(TOKEN_REFUSALS.unknownKey);
  });

  // The refetch a token starts itself (the first past cacheMaxAge, or the first of a verifier) was
  // sent after it arrived: it holds the token's key if the server publishes it, so a key it lacks
  // is not looked for in one more fetch (docs/contract.md#reading-the-authorization-header).
  it('looks for a kid in the refetch the token started itself past cacheMaxAge, and in no other', async () => {
    published = [first];
    const verify = verifierOf({ cacheMaxAge: 60_000 });
    await verify(await tokenOf(first));
    const start = served;
    advance(60_001);
    expect(await refusalOf(verify(await tokenOf(third)))).toBe(TOKEN_REFUSALS.unknownKey); // never published
    expect(served - start).toBe(1);
    // So on a verifier's first token: its first fetch is the one it looks in.
    const fresh = verifierOf();
    const before = served;
    expect(await refusalOf(fresh(await tokenOf(third)))).toBe(TOKEN_REFUSALS.unknownKey);
    expect(served - before).toBe(1);
  });

  it("verifies a rotated key's first token without a kid past cacheMaxAge with the refetch it started: one fetch", async () => {
    published = [first];
    const verify = verifierOf({ cacheMaxAge: 60_000 });
    await verify(await tokenOf(first, false));
    const start = served;
    published = [second, first]; // the server rotates; its tokens name no kid
    advance(60_001);
    expect((await verify(await tokenOf(second, false))).subject).toBe('alice');
    expect(served - start).toBe(1);
    // So on a verifier's first token without a kid that no key of the set signed.
    const fresh = verifierOf();
    const before = served;
    expect(await refusalOf(fresh(await tokenOf(third, false)))).toBe(TOKEN_REFUSALS.unknownKey);
    expect(served - before).toBe(1);
  });

  // A refetch for an unknown kid that waits for minRefetchInterval is not the refetch past
  // cacheMaxAge: that one goes at once, whatever forged kids made the other wait.
  it('refetches past cacheMaxAge at once while a refetch for an unknown kid waits for minRefetchInterval', async () => {
    published = [first];
    const verify = verifierOf({ cacheMaxAge: 60_000, minRefetchInterval: 60_000 });
    const token = await tokenOf(first);
    await verify(token);
    advance(0);
    expect(await refusalOf(verify(await tokenOf(third)))).toBe(TOKEN_REFUSALS.unknownKey); // the first such refetch: at once
    const waiting = refusalOf(verify(forgedWithKid));
    await sleep(100); // its refetch now waits for minRefetchInterval
    const start = served;
    published = [second]; // the server rotated `first` out
    advance(60_001);
    expect((await verify(token)).subject).toBe('alice'); // answered at once; the refetch past cacheMaxAge goes
    // Answered by that refetch, sent after it arrived, not minRefetchInterval (60 s) later.
    expect(await Promise.race([waiting, sleep(3_000).then(() => 'still waiting')])).toBe(TOKEN_REFUSALS.unknownKey);
    expect(served - start).toBe(1);
    expect((await verify(await tokenOf(second))).subject).toBe('alice'); // what it brought: no fetch more
    expect(served - start).toBe(1);
    // `first` is trusted no more: its token waits for a refetch for its kid, which the next
    // refetch past cacheMaxAge answers at once.
    const removed = refusalOf(verify(token));
    await sleep(100);
    advance(60_001);
    expect((await verify(await tokenOf(second))).subject).toBe('alice');
    expect(await Promise.race([removed, sleep(3_000).then(() => 'still waiting')])).toBe(TOKEN_REFUSALS.unknownKey);
    expect(served - start).toBe(2);
  });

  it('answers at once with staleIfErrorDuration 0 past cacheMaxAge while a refetch for an unknown kid waits for minRefetchInterval', async () => {
    published = [first];
    const verify = verifierOf({ cacheMaxAge: 60_000, staleIfErrorDuration: 0, minRefetchInterval: 60_000 });
    const token = await tokenOf(first);
    await verify(token);
    advance(0);
    expect(await refusalOf(verify(await tokenOf(third)))).toBe(TOKEN_REFUSALS.unknownKey);
    const waiting = refusalOf(verify(forgedWithKid));
    await sleep(100);
    advance(60_001);
    const waited = Symbol('waited for minRefetchInterval');
    const outcome = await Promise.race([verify(token), new Promise((resolve) => setTimeout(resolve, 3_000, waited))]);
    expect(outcome).toMatchObject({ subject: 'alice' }); // one fetch away, not minRefetchInterval
    expect(await waiting).toBe(TOKEN_REFUSALS.unknownKey);
  });
});
