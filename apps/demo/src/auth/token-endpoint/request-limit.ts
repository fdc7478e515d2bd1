/**
 * The largest token or revocation request body in bytes (a form of a few short fields needs far
 * less); a larger one is refused with 413 before it is read.
 *
 * @example
 * ```ts
 * tokenEndpoint(t.procedure, { maxBodySize: MAX_TOKEN_REQUEST_BYTES, issue });
 * ```
 */
export const MAX_TOKEN_REQUEST_BYTES = 16 * 1024;
