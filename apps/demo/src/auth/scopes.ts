/**
 * The scopes the demo API declares: name → what Swagger UI shows next to the checkbox.
 *
 * @example
 * ```ts
 * Object.keys(DEMO_SCOPES); // ['me', 'items']
 * ```
 */
export const DEMO_SCOPES = Object.freeze({
  me: 'Read your profile',
  items: 'Read your items',
} as const);

/**
 * One of {@link DEMO_SCOPES}.
 *
 * @example
 * ```ts
 * const scope: DemoScope = 'items';
 * ```
 */
export type DemoScope = keyof typeof DEMO_SCOPES;

/**
 * Whether `scope` is one the demo declares.
 *
 * @example
 * ```ts
 * isDemoScope('items'); // true
 * isDemoScope('admin'); // false
 * ```
 */
export const isDemoScope = (scope: string): scope is DemoScope => Object.hasOwn(DEMO_SCOPES, scope);
