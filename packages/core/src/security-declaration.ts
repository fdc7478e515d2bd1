import type { OAuth2SecurityScheme } from './oauth-flows.js';

/**
 * The key under which a security middleware carries its {@link SecurityDeclaration}. It is a
 * global symbol so that two copies of this package still understand each other.
 *
 * @example
 * ```ts
 * auth[SECURITY].schemeName; // 'OAuth2PasswordBearer'
 * ```
 */
export const SECURITY: unique symbol = Symbol.for('trpc-oauth2.security') as never;

/**
 * What one security middleware in a chain declares: its scheme and the scopes it requires.
 * Readers declare themselves with no scopes; `requireScopes` declares scopes for its reader's
 * scheme. Documents are generated from these, so the chain is the single source of truth.
 *
 * @example
 * ```ts
 * const declaration: SecurityDeclaration = {
 *   schemeName: 'OAuth2PasswordBearer',
 *   scheme: auth.securityScheme,
 *   scopes: ['me'],
 * };
 * ```
 */
export interface SecurityDeclaration {
  readonly schemeName: string;
  readonly scheme: OAuth2SecurityScheme;
  readonly scopes: readonly string[];
  /** Set by readers: `true` when the reader lets unauthenticated requests through (`autoError: false`). */
  readonly optional?: boolean;
}
