/**
 * Deep freezing, for what is built once and served to every client (the authorization server
 * metadata, the protected resource metadata): no request's code may change what the others are
 * served (docs/contract.md#authorization-server-metadata).
 * @module
 */

/**
 * `value` frozen, and every object it holds, as deep as they go (an object frozen already is
 * taken as frozen throughout, and left as it is). A typed array or `DataView` is left as it is:
 * `Object.freeze` throws for one with elements, which no freezing can make read-only.
 *
 * @example
 * ```ts
 * const metadata = deepFreeze({ issuer, grant_types_supported: ['password'] });
 * ```
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const entry of Object.values(value)) deepFreeze(entry);
  }
  return value;
}
