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
 * A server the login loops send to, and where its answers are counted.
 *
 * @example
 * ```ts
 * const at: LoginTarget = { url: server.url, tally };
 * ```
 */
export interface LoginTarget {
  url: string;
  tally: SoakTally;
}

/**
 * One round of the token endpoint's real work, each step a password check or a refresh-token
 * rotation: alice logs in over REST (a confidential client) on `home`, refreshes on `other`,
 * replays the spent refresh token on `home` (refused, and its family revoked, so the successor
 * is refused too, on `other`); bob logs in over tRPC; alice mistypes her password; an unknown
 * user guesses (also with a NUL in the name, over REST, tRPC JSON and a tRPC form), until the
 * throttle answers 429 for that username (the soak server's per-username limit lets the others
 * pass). With one server, `home` and `other` are the same; with several, rotation, revocation
 * and the throttle cross servers.
 */
function loginRound(home: LoginTarget, other: LoginTarget): Step[] {
  const token = (at: LoginTarget) => `${at.url}/api/token`;
  const post = (body: string, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', headers: { ...FORM, ...headers }, body });
  const refresh = (refreshToken: string) => post(`grant_type=refresh_token&refresh_token=${encodeURIComponent(refreshToken)}`, CLI);
  const at = (target: LoginTarget, name: string, expected: readonly number[], url: string, init: RequestInit) => send(target.tally, name, expected, url, init);
  let first: string | undefined;
  let second: string | undefined;
  return [
    async () => {
      first = (await at(home, 'login alice (REST, client demo-cli)', [200], token(home), post('username=alice&password=wonderland', CLI)))?.refresh_token;
      // The rotation goes with its login, in one step: the loops stop between steps, and a round
      // stopped after a slow login (each is a scrypt) would leave `other` without a rotation.
      if (first !== undefined) second = (await at(other, 'refresh (rotates)', [200], token(other), refresh(first)))?.refresh_token;
    },
    async () => {
      if (first !== undefined) await at(home, 'refresh token replayed', [400], token(home), refresh(first));
    },
    async () => {
      if (second !== undefined) await at(other, 'successor of a replayed token', [400], token(other), refresh(second));
    },
    async () => {
      await at(home, 'login bob (tRPC)', [200], `${home.url}/trpc/auth.token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ json: { username: 'bob', password: 'builder' } }),
      });
    },
    async () => {
      await at(other, 'login alice, wrong password', [400], token(other), post('username=alice&password=wonderlamd'));
    },
    async () => {
      await at(home, 'login unknown user (throttled)', [400, 429], token(home), post('username=mallory&password=guess'));
    },
    async () => {
      // PostgreSQL text cannot hold U+0000: a wrong login, throttled like any other.
      await at(other, 'login with a NUL in the username (REST)', [400, 429], token(other), post('username=mallory%00&password=guess'));
    },
    async () => {
      await at(home, 'login with a NUL in the username (tRPC)', [400, 429], `${home.url}/trpc/auth.token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ json: { username: 'mallory\0', password: 'guess' } }),
      });
    },
    async () => {
      await at(other, 'login with a NUL in the username (tRPC form)', [400, 429], `${other.url}/trpc/auth.token`, post('username=mallory%00&password=guess'));
    },
  ];
}

/**
 * Runs login rounds until `stop` is aborted, counting every answer in the tally of the server
 * it went to. Logins are kept to a few at a time: each costs one scrypt (~250 ms of CPU). With
 * several servers, loop `i`'s round `r` logs in on server `(i + r) mod n` and refreshes on the
 * next one, so every server serves logins and every rotation crosses servers.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * const logins = runLogins([{ url, tally }], { concurrency: 2, stop: stop.signal });
 * await load;
 * stop.abort();
 * await logins;
 * ```
 */
export async function runLogins(targets: readonly LoginTarget[], { concurrency, stop }: LoginLoopOptions): Promise<void> {
  const loop = async (index: number) => {
    for (let round = index; !stop.aborted; round += 1) {
      const home = targets[round % targets.length]!;
      const other = targets[(round + 1) % targets.length]!;
      for (const step of loginRound(home, other)) {
        if (stop.aborted) return;
        await step();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, index) => loop(index)));
}
