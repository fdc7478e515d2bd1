import { OAuth2Error } from './oauth2-error.js';

/**
 * Finds the {@link OAuth2Error} behind an error thrown by a procedure, if there is one.
 *
 * @example
 * ```ts
 * const headers = getOAuth2Error(error)?.headers; // { 'WWW-Authenticate': 'Bearer' }
 * ```
 */
export function getOAuth2Error(error: unknown): OAuth2Error | undefined {
  let current = error;
  // A TRPCError wraps its cause; a cause may itself be wrapped once more by an adapter.
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    if (current instanceof OAuth2Error) return current;
    current = current.cause;
  }
  return undefined;
}
