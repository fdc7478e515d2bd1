/**
 * docs/contract.md#subscriptions and #step-up-authentication: a stream behind a step-up
 * requirement is rechecked against it, as against the chain's scopes. When a reader rechecks
 * (`recheckInterval`), a renewed principal whose `acr` is no longer accepted, or whose `authTime`
 * is by now more than `maxAge` ago, ends the stream with the step-up's own 401
 * (`insufficient_user_authentication`); a principal still meeting it streams on. Without a
 * recheck, `maxAge` passing ends the stream by itself, at the first second the authentication is
 * more than `maxAge` old (unless the token expires first). Through `createCaller`, for a
 * subscription, a streamed query, and a stream among a query's values.
 */
import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getOAuth2Error, oauth2PasswordBearer, requireAuthentication, type AuthenticatedPrincipal, type Principal } from '../src/index.js';

const t = initTRPC.create();
const now = () => Date.now() / 1000;

/** A verifier whose answers the test changes while a stream runs. */
function changing(initial: AuthenticatedPrincipal) {
  const current = { principal: initial };
  const verify = async (): Promise<Principal & AuthenticatedPrincipal> => ({ scopes: ['me'], ...current.principal });
  return { current, auth: oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Me' }, verify, recheckInterval: 40 }) };
}

const ticks = async function* () {
  for (let i = 0; i < 200; i++) {
    yield i;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** Reads `stream` to its end: the error it ended with, or `undefined` when it ran out. */
async function endOf(stream: AsyncIterable<number>): Promise<unknown> {
  try {
    for await (const _ of stream) void _;
    return undefined;
  } catch (error) {
    return error;
  }
}

describe.each(['subscription', 'streamed query'] as const)('a %s behind a step-up, rechecked', (kind) => {
  const open = (auth: ReturnType<typeof changing>['auth'], requirement: Parameters<typeof requireAuthentication>[0]) => {
    const chain = t.procedure.use(auth.withScopes('me')).use(requireAuthentication(requirement)).input(z.void());
    const router = t.router({ feed: kind === 'subscription' ? chain.subscription(ticks) : chain.query(ticks) });
    return router.createCaller({ headers: { authorization: 'Bearer t' } } as never).feed() as Promise<AsyncIterable<number>>;
  };

  it('ends with insufficient_user_authentication once the renewed acr is no longer accepted', async () => {
    const { current, auth } = changing({ acr: 'mfa', authTime: now() });
    const stream = await open(auth, { acrValues: ['mfa'] });
    setTimeout(() => (current.principal = { acr: 'pwd', authTime: now() }), 100);
    const ended = await endOf(stream);
    expect(getOAuth2Error(ended)).toMatchObject({ code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION', status: 401 });
    expect(getOAuth2Error(ended)?.headers['WWW-Authenticate']).toBe(
      'Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="mfa"',
    );
  });

  it('ends once the authentication is more than maxAge old at a recheck', async () => {
    const authTime = Math.floor(now());
    const { auth } = changing({ acr: 'mfa', authTime });
    const ended = await endOf(await open(auth, { maxAge: 1 }));
    expect(getOAuth2Error(ended)).toMatchObject({ code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION', status: 401 });
    expect(getOAuth2Error(ended)?.headers['WWW-Authenticate']).toContain('max_age="1"');
    // Not before the authentication was more than a second old (second authTime + 2), nor long after.
    const until = (authTime + 2) * 1000;
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    expect(Date.now() - until).toBeLessThan(1_500);
  });

  it('streams on while the renewed principal meets it', async () => {
    const { current, auth } = changing({ acr: 'mfa', authTime: now() });
    const stream = await open(auth, { acrValues: ['mfa', 'hwk'], maxAge: 600 });
    setTimeout(() => (current.principal = { acr: 'hwk', authTime: now() }), 100);
    expect(await endOf(stream)).toBeUndefined();
  });
});

describe.each(['subscription', 'streamed query', 'stream among the values'] as const)('a %s behind a maxAge step-up, without rechecks', (kind) => {
  /** A reader that verifies once: the principal never changes while the stream runs. */
  const once = (principal: AuthenticatedPrincipal & { expiresAt?: number }) =>
    oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Me' }, verify: async (): Promise<Principal & AuthenticatedPrincipal> => ({ scopes: ['me'], ...principal }) });
  /** Events every 10 ms, each saying when it was produced. */
  const stamped = async function* () {
    for (let i = 0; i < 400; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      yield Date.now();
    }
  };
  const open = async (auth: ReturnType<typeof once>, requirement: Parameters<typeof requireAuthentication>[0]) => {
    const chain = t.procedure.use(auth.withScopes('me')).use(requireAuthentication(requirement)).input(z.void());
    const router = t.router({
      feed: kind === 'subscription' ? chain.subscription(stamped) : kind === 'streamed query' ? chain.query(stamped) : chain.query(() => ({ feed: stamped() })),
    });
    const result = await (router.createCaller({ headers: { authorization: 'Bearer t' } } as never).feed() as Promise<unknown>);
    return (kind === 'stream among the values' ? (result as { feed: AsyncIterable<number> }).feed : result) as AsyncIterable<number>;
  };
  /** Reads `stream` to its end: what it delivered, and the error it ended with. */
  const readAll = async (stream: AsyncIterable<number>) => {
    const produced: number[] = [];
    try {
      for await (const at of stream) produced.push(at);
      return { produced, ended: undefined as unknown };
    } catch (error) {
      return { produced, ended: error };
    }
  };

  it('ends with insufficient_user_authentication the first second the authentication is more than maxAge old, delivering nothing produced after', async () => {
    const authTime = Math.floor(now());
    // Met while authTime + maxAge is not over: it stops being met at second authTime + 2.
    const until = (authTime + 2) * 1000;
    const { produced, ended } = await readAll(await open(once({ acr: 'mfa', authTime }), { maxAge: 1 }));
    expect(getOAuth2Error(ended)).toMatchObject({ code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION', status: 401 });
    expect(getOAuth2Error(ended)?.headers['WWW-Authenticate']).toContain('max_age="1"');
    expect(produced.length).toBeGreaterThan(0);
    expect(produced.filter((at) => at >= until)).toEqual([]);
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    expect(Date.now() - until).toBeLessThan(1_500);
  });

  it('ends at the whole second a fractional authTime stops meeting it, as the opening check counts', async () => {
    // authTime F - 0.5 with maxAge 1: met while floor(now) - authTime <= 1, so through second F.
    // Opened early in a second, so that the opening check runs within it.
    await new Promise((resolve) => setTimeout(resolve, 1005 - (Date.now() % 1000)));
    const whole = Math.floor(now());
    const until = (whole + 1) * 1000;
    const { produced, ended } = await readAll(await open(once({ acr: 'mfa', authTime: whole - 0.5 }), { maxAge: 1 }));
    expect(getOAuth2Error(ended)).toMatchObject({ code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION', status: 401 });
    expect(produced.filter((at) => at >= until)).toEqual([]);
    expect(Date.now()).toBeGreaterThanOrEqual(until);
  });

  it('ends with the token expired when the token expires first', async () => {
    const authTime = Math.floor(now());
    const { ended } = await readAll(await open(once({ authTime, expiresAt: now() + 0.3 }), { maxAge: 600 }));
    expect(getOAuth2Error(ended)).toMatchObject({ code: 'ERR_INVALID_TOKEN', status: 401 });
  });
});
