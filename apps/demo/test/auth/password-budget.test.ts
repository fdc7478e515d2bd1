import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PasswordBudget, type PasswordBudgetSettings } from '../../src/auth/login-throttle/password-budget.js';
import { PasswordQueue } from '../../src/store/password-queue.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { postToken } from '../support/http.js';

// The password budget: how many password checks one account and one address may have, right or
// wrong, so that a client looping a correct login cannot make every other login wait behind its
// scrypt checks (docs/contract.md#token-responses).

const SETTINGS: PasswordBudgetSettings = { account: { burst: 3, perSecond: 0.5 }, address: { burst: 5, perSecond: 1 }, maxEntries: 100 };

function budgetAt(settings: PasswordBudgetSettings = SETTINGS) {
  const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
  return { clock, budget: new PasswordBudget(settings, () => clock.now) };
}

describe('PasswordBudget', () => {
  it('allows the burst at once, then the rate, and says how long to wait', () => {
    const { clock, budget } = budgetAt();
    expect([1, 2, 3].map(() => budget.take('alice', 'a').allowed)).toEqual([true, true, true]);
    expect(budget.take('alice', 'a')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    clock.now += 1_000;
    expect(budget.take('alice', 'a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.now += 1_000;
    expect(budget.take('alice', 'a').allowed).toBe(true);
    expect(budget.take('alice', 'a').allowed).toBe(false);
  });

  it('counts each account apart, and the address over all of them', () => {
    const { budget } = budgetAt();
    for (let i = 0; i < 3; i++) expect(budget.take('alice', 'a').allowed).toBe(true);
    expect(budget.take('bob', 'b').allowed).toBe(true);
    // Two more from address a (its burst is 5), whatever the account.
    expect(budget.take('carol', 'a').allowed).toBe(true);
    expect(budget.take('dave', 'a').allowed).toBe(true);
    expect(budget.take('erin', 'a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("spends nothing of the address when the account refuses: one account's flood leaves the others their turn", () => {
    const { budget } = budgetAt();
    for (let i = 0; i < 100; i++) budget.take('alice', 'a');
    // alice spent her 3; the 97 refusals cost address a nothing.
    expect(budget.take('bob', 'a').allowed).toBe(true);
    expect(budget.take('carol', 'a').allowed).toBe(true);
  });

  it('remembers at most maxEntries accounts and addresses', () => {
    const { budget } = budgetAt({ ...SETTINGS, address: { burst: 1_000, perSecond: 1 }, maxEntries: 10 });
    for (let i = 0; i < 50; i++) budget.take(`user-${i}`, `address-${i % 20}`);
    expect(budget.size()).toEqual({ accounts: 10, addresses: 10 });
  });

  it('refuses settings it cannot honour', () => {
    for (const settings of [
      { ...SETTINGS, account: { burst: 0, perSecond: 1 } },
      { ...SETTINGS, address: { burst: 1, perSecond: 0 } },
      { ...SETTINGS, account: { burst: Infinity, perSecond: 1 } },
      { ...SETTINGS, maxEntries: 0 },
    ]) {
      expect(() => new PasswordBudget(settings)).toThrow(RangeError);
    }
  });

  // The invariant: whatever the accounts, addresses and times, within any span of time an account
  // is allowed at most burst + rate × span checks, and an address the same with its own limit.
  it('never allows an account or an address more than its burst plus its rate over any span (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ account: fc.constantFrom('alice', 'bob', 'carol'), address: fc.constantFrom('a', 'b'), waitMs: fc.integer({ min: 0, max: 3_000 }) }), {
          maxLength: 80,
        }),
        (takes) => {
          const { clock, budget } = budgetAt();
          const allowed: { account: string; address: string; at: number }[] = [];
          for (const take of takes) {
            clock.now += take.waitMs;
            if (budget.take(take.account, take.address).allowed) allowed.push({ account: take.account, address: take.address, at: clock.now });
          }
          for (const [field, limit] of [
            ['account', SETTINGS.account],
            ['address', SETTINGS.address],
          ] as const) {
            for (const key of new Set(allowed.map((entry) => entry[field]))) {
              const times = allowed.filter((entry) => entry[field] === key).map((entry) => entry.at);
              for (let i = 0; i < times.length; i++) {
                for (let j = i; j < times.length; j++) {
                  expect(j - i + 1).toBeLessThanOrEqual(limit.burst + (limit.perSecond * (times[j]! - times[i]!)) / 1000 + 1e-9);
                }
              }
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

// Through the real server: one account floods correct logins over many connections while
// another user logs in. Counted in password checks, not timed: the flood's checks are capped by
// its budget, so the other login waits behind at most the checks already running.
const started: number[] = [];
const CONCURRENCY = 2;
const demo = demoForThisFile({
  passwordQueue: new PasswordQueue({ concurrency: CONCURRENCY, onEvent: (event) => event.type === 'start' && started.push(Date.now()) }),
  passwordBudget: { account: { burst: 4, perSecond: 0.5 }, address: { burst: 1_000, perSecond: 1_000 }, maxEntries: 1_000 },
});

describe('an account flooding correct logins', () => {
  it("gets 429 slow_down past its budget, and another user's login waits behind the checks running, not behind the flood", async () => {
    const FLOODERS = 30;
    const FLOOD_MS = 3_000;
    const statuses: number[] = [];
    let refusal: { status: number; headers: Headers; body: any } | undefined;
    const floodStart = Date.now();
    let flooding = true;
    const flood = Array.from({ length: FLOODERS }, async () => {
      while (flooding) {
        const answer = await postToken(demo.url, { username: 'alice', password: 'wonderland' });
        statuses.push(answer.status);
        if (answer.status === 429) refusal ??= answer;
      }
    });
    // Let the flood spend its burst (its checks answered), then log bob in while it goes on.
    while (statuses.filter((status) => status === 200).length < 4) await new Promise((resolve) => setTimeout(resolve, 20));
    const checksBefore = started.length;
    const bobSent = Date.now();
    const bob = await postToken(demo.url, { username: 'bob', password: 'builder' });
    const bobSeconds = (Date.now() - bobSent) / 1000;
    const checksDuring = started.length - checksBefore;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, FLOOD_MS - (Date.now() - floodStart))));
    flooding = false;
    await Promise.all(flood);
    const floodSeconds = (Date.now() - floodStart) / 1000;

    expect(bob.status).toBe(200);
    // bob's own check, and no more of alice's than her budget lets through meanwhile (one every
    // two seconds, and one it had regained): without the budget, every flooding connection's.
    expect(checksDuring).toBeLessThanOrEqual(1 + 1 + Math.floor(0.5 * bobSeconds));
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(4 + Math.ceil(0.5 * floodSeconds));
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(FLOODERS);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    expect(refusal!.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(refusal!.body).toMatchObject({ error: 'slow_down', error_description: expect.stringMatching(/^Too many login attempts: try again in \d+ seconds$/) });
    // Every check of the run: alice's allowed ones, bob's and the server's own start-up ones at most.
    expect(started.length).toBeLessThanOrEqual(4 + Math.ceil(0.5 * floodSeconds) + 1 + 2);
  }, 3 * TEST_TIMEOUT_MS);
});
