/**
 * What the demo's logs say of a server fault.
 * @module
 */

/**
 * A server fault as a log line names it: its name and, for a database error, its code. Never its
 * message: a database error's message can quote the value a client sent.
 *
 * @example
 * ```ts
 * console.error(`users.me failed: ${faultOf(error)}`); // 'users.me failed: error (22021)'
 * ```
 */
export function faultOf(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.name} (${code})` : error.name;
}
