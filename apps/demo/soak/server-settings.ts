import type { LoginThrottleSettings } from '../src/auth/login-throttle/login-throttle.js';
import type { PasswordBudgetSettings } from '../src/auth/login-throttle/password-budget.js';

/**
 * The soak server's login throttle: the per-username limit stays low enough for the unknown
 * user's guesses to be refused (counted as 429s), while every load comes from 127.0.0.1, so
 * the per-address limit is set out of reach, or alice and bob could not log in.
 *
 * @example
 * ```ts
 * await start({ port: 0, dataDir, loginThrottle: SOAK_LOGIN_THROTTLE, passwordBudget: SOAK_PASSWORD_BUDGET });
 * ```
 */
export const SOAK_LOGIN_THROTTLE: LoginThrottleSettings = Object.freeze({
  username: Object.freeze({ maxFailures: 10, windowSeconds: 30 }),
  address: Object.freeze({ maxFailures: 1_000_000, windowSeconds: 30 }),
  maxEntries: 10_000,
});

/**
 * The soak server's password budget: out of reach, since the soak's own clients log alice and
 * bob in as fast as they can from one address (the budget has its own test).
 *
 * @example
 * ```ts
 * await start({ port: 0, dataDir, loginThrottle: SOAK_LOGIN_THROTTLE, passwordBudget: SOAK_PASSWORD_BUDGET });
 * ```
 */
export const SOAK_PASSWORD_BUDGET: PasswordBudgetSettings = Object.freeze({
  account: Object.freeze({ burst: 1_000_000, perSecond: 1_000_000 }),
  address: Object.freeze({ burst: 1_000_000, perSecond: 1_000_000 }),
  maxEntries: 10_000,
});
