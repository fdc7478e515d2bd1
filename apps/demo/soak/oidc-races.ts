/**
 * The races the soak runs at the authorization server (`/oidc`), beside its load: one code
 * redeemed by many requests at once, spread over every server, then one refresh token spent the
 * same way. Each must have exactly one winner (RFC 6749 §4.1.2, §10.4).
 * @module
 */
import { aliceCode, redeemCode, type AliceCode } from './authorization-code.js';
import type { LoginTarget } from './logins.js';

/**
 * What the races found: how many of each ran, and how many had no winner (`lost`) or more than
 * one (`doubled`).
 *
 * @example
 * ```ts
 * const races: RaceCounts = { codes: 12, refreshes: 12, lost: 0, doubled: 0 };
 * ```
 */
export interface RaceCounts {
  codes: number;
  refreshes: number;
  lost: number;
  doubled: number;
}

/**
 * How the races run: `racers` requests at once per race, until `stop` is aborted.
 *
 * @example
 * ```ts
 * const options: RaceOptions = { racers: 20, stop: controller.signal };
 * ```
 */
export interface RaceOptions {
  racers: number;
  stop: AbortSignal;
}

const CLIENT = 'swagger-ui';

/**
 * Runs races until `stop` is aborted. The code is asked for at the first server, the issuer
 * every server names (they share a public URL); the racers go to every server in turn. Every
 * answer is counted in the tally of the server it came from (200 or 400 `invalid_grant` allowed).
 *
 * @example
 * ```ts
 * const races = await runOidcRaces(targets, { racers: 20, stop: stop.signal });
 * races.doubled + races.lost; // 0
 * ```
 */
export async function runOidcRaces(targets: readonly LoginTarget[], { racers, stop }: RaceOptions): Promise<RaceCounts> {
  const counts: RaceCounts = { codes: 0, refreshes: 0, lost: 0, doubled: 0 };
  const issuer = targets[0]!;
  const judge = (winners: number) => {
    if (winners === 0) counts.lost += 1;
    if (winners > 1) counts.doubled += 1;
  };
  /** One racer's answer, counted where it came from; `undefined` when it got none. */
  const race = async (target: LoginTarget, name: string, send: () => Promise<{ status: number; body: any }>) => {
    try {
      const answer = await send();
      target.tally.response(name, answer.status, [200, 400]);
      return answer;
    } catch (error) {
      target.tally.error(name, error);
      return undefined;
    }
  };
  while (!stop.aborted) {
    let fields: AliceCode;
    try {
      fields = await aliceCode(issuer.url);
    } catch (error) {
      issuer.tally.error('oidc authorization for a race', error);
      continue;
    }
    const redeemed = await Promise.all(
      Array.from({ length: racers }, (_, i) => {
        const target = targets[i % targets.length]!;
        return race(target, 'oidc code redeemed in a race', () => redeemCode(target.url, fields));
      }),
    );
    counts.codes += 1;
    judge(redeemed.filter((answer) => answer?.status === 200).length);
    if (stop.aborted) break;
    // A refresh token spent the same way: a fresh one, since the code's replays revoked the
    // winner's grant (its refresh token is refused whoever wins).
    const fresh = await freshRefreshToken(issuer);
    if (fresh === undefined) continue;
    const refreshed = await Promise.all(
      Array.from({ length: racers }, (_, i) => {
        const target = targets[(i + 1) % targets.length]!;
        return race(target, 'oidc refresh token spent in a race', () => refreshAt(target.url, fresh));
      }),
    );
    counts.refreshes += 1;
    judge(refreshed.filter((answer) => answer?.status === 200).length);
  }
  return counts;
}

/** A refresh token of a code redeemed once, quietly (its answers are not part of a race). */
async function freshRefreshToken(issuer: LoginTarget): Promise<string | undefined> {
  try {
    const redeemed = await redeemCode(issuer.url, await aliceCode(issuer.url));
    issuer.tally.response('oidc code redeemed once', redeemed.status, [200]);
    return typeof redeemed.body?.refresh_token === 'string' ? redeemed.body.refresh_token : undefined;
  } catch (error) {
    issuer.tally.error('oidc code redeemed once', error);
    return undefined;
  }
}

async function refreshAt(url: string, refreshToken: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/oidc/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: CLIENT, refresh_token: refreshToken }),
  });
  return { status: response.status, body: await response.json() };
}
