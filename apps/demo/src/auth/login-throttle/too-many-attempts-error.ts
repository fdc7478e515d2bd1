import { OAuth2Error } from '@trpc-oauth2/core';
import { TRPCError } from '@trpc/server';

/**
 * The login throttle's refusal: HTTP 429 with `Retry-After` (seconds), tRPC code
 * `TOO_MANY_REQUESTS`, stable code `ERR_SLOW_DOWN`. RFC 6749 §5.2 has no error for this, so the
 * body's `error` is `slow_down`, the value registered for token endpoint responses (RFC 8628
 * §3.5) that means "you are asking too fast: wait before trying again". It is not
 * `invalid_grant`, which would tell the client its password was wrong when it was never checked,
 * nor `temporarily_unavailable`, which RFC 6749 defines for the authorization endpoint and for
 * an overloaded server rather than for this client's conduct.
 *
 * @example
 * ```ts
 * if (!attempt.allowed) throw tooManyAttemptsError(attempt.retryAfterSeconds, attempt.reason);
 * ```
 */
export function tooManyAttemptsError(retryAfterSeconds: number, reason: 'failures' | 'password-budget' | 'under-way' = 'failures'): TRPCError {
  return new OAuth2Error({
    code: 'ERR_SLOW_DOWN',
    status: 429,
    error: 'slow_down',
    message: `${tooManyAttemptsText(reason)}: try again in ${retryAfterSeconds} seconds`,
    headers: { 'Retry-After': String(retryAfterSeconds) },
  }).toTRPCError();
}

/**
 * What a refused login is told, by why it was refused: too many wrong passwords, or more logins
 * than the account or address may have checked (right or wrong).
 *
 * @example
 * ```ts
 * tooManyAttemptsText('password-budget'); // 'Too many login attempts'
 * ```
 */
export function tooManyAttemptsText(reason: 'failures' | 'password-budget' | 'under-way'): string {
  if (reason === 'under-way') return 'Too many login attempts at once';
  return reason === 'failures' ? 'Too many failed login attempts' : 'Too many login attempts';
}

/**
 * What a login is answered with when it settled after its attempt expired (see
 * `LoginThrottle`): the server took longer than an attempt may stay under way, and other attempts
 * may have been let in in its place, so its answer is not given. `SERVICE_UNAVAILABLE` (503):
 * nothing is wrong with the request, which may be sent again.
 *
 * @example
 * ```ts
 * if (!inTime) throw tooLateError();
 * ```
 */
export function tooLateError(): TRPCError {
  return new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'The login took too long to be checked: try again' });
}
