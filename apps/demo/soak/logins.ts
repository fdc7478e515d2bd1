import type { SoakTally } from './tally.js';

/**
 * How the soak's logins run: `concurrency` loops side by side until `stop` is aborted (each
 * finishes the request it is in, so none is cut off and miscounted as an error).
 *
 * @example
 * ```ts
 * const options: LoginLoopOptions = { concurrency: 2, stop: controller.signal };
 * ```
 */
export interface LoginLoopOptions {
  concurrency: number;
  stop: AbortSignal;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const CLI = { authorization: `Basic ${Buffer.from('demo-cli:demo-cli-secret').toString('base64')}` };

type Step = () => Promise<void>;

/** Sends one request, counts its answer, and returns its JSON body (`undefined` if none). */
async function send(tally: SoakTally, name: string, expected: readonly number[], url: string, init: RequestInit): Promise<any> {
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    tally.response(name, response.status, expected);
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  } catch (error) {
    tally.error(name, error);
    return undefined;
  }
}

/**
 * One round of the token endpoint's real work, each step a password check or a refresh-token
 * rotation: alice logs in over REST (a confidential client), refreshes, replays the spent
 * refresh token (refused, and its family revoked, so the successor is refused too); bob logs
 * in over tRPC; alice mistypes her password; an unknown user guesses (also with a NUL in the
 * name, over REST and tRPC), until the throttle
 * answers 429 for that username (the soak server's per-username limit lets the others pass).
 */
function loginRound(baseUrl: string, tally: SoakTally): Step[] {
  const token = `${baseUrl}/api/token`;
  const post = (body: string, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', headers: { ...FORM, ...headers }, body });
  const refresh = (refreshToken: string) => post(`grant_type=refresh_token&refresh_token=${encodeURIComponent(refreshToken)}`, CLI);
  let first: string | undefined;
  let second: string | undefined;
  return [
    async () => {
      first = (await send(tally, 'login alice (REST, client demo-cli)', [200], token, post('username=alice&password=wonderland', CLI)))?.refresh_token;
    },
    async () => {
      if (first !== undefined) second = (await send(tally, 'refresh (rotates)', [200], token, refresh(first)))?.refresh_token;
    },
    async () => {
      if (first !== undefined) await send(tally, 'refresh token replayed', [400], token, refresh(first));
    },
    async () => {
      if (second !== undefined) await send(tally, 'successor of a replayed token', [400], token, refresh(second));
    },
    async () => {
      await send(tally, 'login bob (tRPC)', [200], `${baseUrl}/trpc/auth.token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ json: { username: 'bob', password: 'builder' } }),
      });
    },
    async () => {
      await send(tally, 'login alice, wrong password', [400], token, post('username=alice&password=wonderlamd'));
    },
    async () => {
      await send(tally, 'login unknown user (throttled)', [400, 429], token, post('username=mallory&password=guess'));
    },
    async () => {
      // PostgreSQL text cannot hold U+0000: a wrong login, throttled like any other.
      await send(tally, 'login with a NUL in the username (REST)', [400, 429], token, post('username=mallory%00&password=guess'));
    },
    async () => {
      await send(tally, 'login with a NUL in the username (tRPC)', [400, 429], `${baseUrl}/trpc/auth.token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ json: { username: 'mallory\0', password: 'guess' } }),
      });
    },
  ];
}

/**
 * Runs login rounds against the demo at `baseUrl` until `stop` is aborted, counting every
 * answer in `tally`. Logins are kept to a few at a time: each costs one scrypt (~250 ms of CPU).
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * const logins = runLogins(url, tally, { concurrency: 2, stop: stop.signal });
 * await load;
 * stop.abort();
 * await logins;
 * ```
 */
export async function runLogins(baseUrl: string, tally: SoakTally, { concurrency, stop }: LoginLoopOptions): Promise<void> {
  const loop = async () => {
    while (!stop.aborted) {
      for (const step of loginRound(baseUrl, tally)) {
        if (stop.aborted) return;
        await step();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}
