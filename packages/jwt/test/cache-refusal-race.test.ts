// cacheVerifier and a refusal that arrives while another verification of the same token is still
// under way (docs/contract.md#subscriptions, recheckInterval): an answer the verifier gave before it
// learned of the revocation may arrive after the refusal, and must then be neither remembered nor
// shared. Scripted verifiers first, then introspection against a real endpoint on loopback.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheVerifier, introspectionVerifier, TOKEN_REFUSALS, type Principal, type VerifyOptions } from '../src/index.js';
import { verifyOptions } from './support/verify-options.js';

const seconds = () => Date.now() / 1000;
const ordinary = (): VerifyOptions => verifyOptions();
const fresh = (): VerifyOptions => ({ ...verifyOptions(), fresh: true });

/** A promise and its `resolve`, for a test that decides when an answer leaves. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A verifier that answers each call with the next script of `scripts` (the last one repeats) and
 * records whether each call was fresh: a script may wait on a gate, then accept or refuse.
 */
function scripted(...scripts: Array<() => Promise<Principal>>) {
  const seen: boolean[] = [];
  const verifier = async (_token: string, options?: VerifyOptions): Promise<Principal> => {
    const script = scripts[Math.min(seen.length, scripts.length - 1)]!;
    seen.push(options?.fresh === true);
    return script();
  };
  return { seen, verifier };
}

/** Until every callback already queued has run (a verification under way has reached its verifier). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

const accept = (after?: Promise<void>) => async (): Promise<Principal> => {
  await after;
  return { scopes: ['me'], expiresAt: seconds() + 3600 };
};
const revoked = (after?: Promise<void>) => async (): Promise<Principal> => {
  await after;
  throw invalidTokenError('The access token is not active');
};
const unreachable = async (): Promise<Principal> => {
  throw new Error('The endpoint could not be reached');
};

describe('cacheVerifier: a verification under way when the token is refused', () => {
  it('never remembers an answer that started before a fresh re-check refused the token', async () => {
    const onTheWire = gate();
    const { seen, verifier } = scripted(accept(onTheWire.promise), revoked(), revoked());
    const verify = cacheVerifier(verifier, { maxEntries: 10 });
    const stale = verify('t', ordinary()); // its answer, active, was sent before the revocation
    await expect(verify('t', fresh())).rejects.toThrow('The access token is not active');
    onTheWire.open();
    // Its own caller, who asked before the refusal, still gets it: only the cache must not keep it.
    await expect(stale).resolves.toMatchObject({ scopes: ['me'] });
    expect(verify.peek!('t')).toBeUndefined();
    await expect(verify('t', ordinary())).rejects.toThrow('The access token is not active');
    expect(seen).toEqual([false, true, false]);
  });

  it('never lets a verification that starts after the refusal share one that started before it', async () => {
    const onTheWire = gate();
    const { seen, verifier } = scripted(accept(onTheWire.promise), revoked(), revoked());
    const verify = cacheVerifier(verifier, { maxEntries: 10 });
    const stale = verify('t', ordinary());
    await expect(verify('t', fresh())).rejects.toThrow('The access token is not active');
    // The stale answer is still on the wire: a new caller asks the verifier, which refuses.
    const after = verify('t', ordinary()).then(
      () => 'accepted',
      (error: Error) => error.message,
    );
    await settled();
    expect(seen).toEqual([false, true, false]);
    onTheWire.open();
    await stale;
    expect(await after).toBe('The access token is not active');
    expect(verify.peek!('t')).toBeUndefined();
  });

  it('never remembers a fresh answer that started before an ordinary verification was refused', async () => {
    const first = gate();
    const second = gate();
    const { seen, verifier } = scripted(revoked(first.promise), accept(second.promise), revoked());
    const verify = cacheVerifier(verifier, { maxEntries: 10 });
    const refused = verify('t', ordinary());
    const renewed = verify('t', fresh());
    first.open();
    await expect(refused).rejects.toThrow('The access token is not active');
    second.open();
    await expect(renewed).resolves.toMatchObject({ scopes: ['me'] });
    expect(verify.peek!('t')).toBeUndefined();
    expect(seen).toEqual([false, true]);
  });

  it('remembers, as before, what a verification that started after the refusal accepts', async () => {
    // A failure forgets the token too (the endpoint was down for a re-check); the token is fine.
    const onTheWire = gate();
    const { seen, verifier } = scripted(accept(onTheWire.promise), unreachable, accept());
    const verify = cacheVerifier(verifier, { maxEntries: 10 });
    const stale = verify('t', ordinary());
    await expect(verify('t', fresh())).rejects.toThrow('The endpoint could not be reached');
    const asked = verify('t', ordinary());
    await settled();
    expect(seen).toEqual([false, true, false]); // asked the verifier, not the stale call
    const after = await asked;
    expect(verify.peek!('t')).toBe(after);
    // The stale answer, arriving last, neither replaces the entry nor removes it.
    onTheWire.open();
    expect(await stale).not.toBe(after);
    expect(verify.peek!('t')).toBe(after);
    expect(await verify('t', ordinary())).toBe(after);
    expect(seen).toEqual([false, true, false]);
  });

  it('still refuses to remember the stale answer after more than maxEntries other tokens were refused', async () => {
    const onTheWire = gate();
    const { seen, verifier } = scripted(accept(onTheWire.promise), revoked());
    const verify = cacheVerifier(verifier, { maxEntries: 2 });
    const stale = verify('t', ordinary());
    await expect(verify('t', fresh())).rejects.toThrow('The access token is not active');
    // A record of refusals bounded by maxEntries would have forgotten this one by now.
    for (let i = 0; i < 10; i++) await expect(verify(`other-${i}`, fresh())).rejects.toThrow('The access token is not active');
    onTheWire.open();
    await stale;
    expect(verify.peek!('t')).toBeUndefined();
    expect(seen).toHaveLength(12);
  });

  it('keeps nothing per refused token: memory stays bounded however many tokens are refused', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const verify = cacheVerifier<Principal>(async () => Promise.reject(invalidTokenError('The access token is not active')), { maxEntries: 10 });
    const refuseMany = async (from: number, count: number) => {
      for (let i = from; i < from + count; i += 1_000) {
        const batch: Array<Promise<unknown>> = [];
        for (let j = i; j < i + 1_000; j++) batch.push(verify(`token-${j}`, j % 2 === 0 ? fresh() : ordinary()).catch(() => undefined));
        await Promise.all(batch);
      }
    };
    await refuseMany(0, 10_000); // warm up: compiled code and lru-cache's index are there before measuring
    gc();
    const before = process.memoryUsage().heapUsed;
    await refuseMany(10_000, 40_000);
    gc();
    // A key (44 base64 characters) and a slot per refusal would be about 4 MB here.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(1024 * 1024);
  });
});

describe('introspectionVerifier with a cache: a revocation while an answer is on the wire', () => {
  let server: Server;
  let endpoint: string;
  /** What the endpoint does with each request in turn: the test scripts it. */
  const replies: Array<(res: ServerResponse) => void> = [];
  /** Resolved when the endpoint receives its next request. */
  let received = gate();
  let requests = 0;
  const aud = 'https://api.example';

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      for await (const _chunk of req);
      requests++;
      const reply = replies.shift();
      received.open();
      if (reply === undefined) res.writeHead(500).end();
      else reply(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json = (body: unknown, status = 200) => (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const active = () => json({ active: true, aud, scope: 'me', exp: Math.floor(seconds()) + 3600 });
  /** An active answer the endpoint holds until `sent` opens: sent before the revocation, still on the wire. */
  const held = (sent: Promise<void>) => (res: ServerResponse) => void sent.then(() => active()(res));
  const verifier = () =>
    introspectionVerifier({ endpoint, clientId: 'api', clientSecret: 'secret', timeout: 5_000, audience: aud, cache: { maxEntries: 10, maxAge: 60 } });

  /** An ordinary verification whose answer (active) is held, and a fresh re-check the endpoint answers with `recheck`. */
  async function race(recheck: (res: ServerResponse) => void) {
    const sent = gate();
    replies.push(held(sent.promise), recheck);
    const verify = verifier();
    received = gate();
    const stale = verify('t', ordinary());
    await received.promise; // the endpoint has the ordinary request: the re-check comes after it
    const rechecked = verify('t', fresh()).then(
      () => 'accepted',
      (error: Error) => error.message,
    );
    return { verify, stale, rechecked, send: sent.open };
  }

  it('asks the endpoint again, and refuses, a token a fresh re-check found inactive', async () => {
    requests = 0;
    const { verify, stale, rechecked, send } = await race(json({ active: false }));
    expect(await rechecked).toBe(TOKEN_REFUSALS.inactive);
    send();
    await expect(stale).resolves.toMatchObject({ scopes: ['me'] });
    expect(verify.peek!('t')).toBeUndefined();
    replies.push(json({ active: false }));
    await expect(verify('t', ordinary())).rejects.toThrow(TOKEN_REFUSALS.inactive);
    expect(requests).toBe(3);
  });

  // A re-check that finds the endpoint down learns nothing of the token: it is no refusal, and
  // the answer under way is remembered as it would have been without it.
  it('remembers what the endpoint accepts after the re-check failed (it was down), and answers it from the cache', async () => {
    requests = 0;
    const { verify, stale, rechecked, send } = await race(json({ error: 'down' }, 503));
    expect(await rechecked).toBe('The token verifier is unavailable');
    send();
    const answered = await stale;
    expect(verify.peek!('t')).toBe(answered);
    expect(await verify('t', ordinary())).toBe(answered);
    expect(requests).toBe(2);
    // A fresh re-check the endpoint answers is remembered in its place.
    replies.push(active());
    const after = await verify('t', fresh());
    expect(verify.peek!('t')).toBe(after);
    expect(await verify('t', ordinary())).toBe(after);
    expect(requests).toBe(3);
  });
});
