import { invalidTokenError, type Principal, type TokenVerifier } from '../../src/index.js';

/** A principal of the test verifiers: who, and what the token grants. */
export interface TestPrincipal extends Principal {
  readonly subject: string;
  readonly scopes: readonly string[];
}

/**
 * A token that a {@link scopeTokenVerifier} of `issuer` accepts, granting `scopes`:
 * `<issuer>.<base64url of the JSON list of scopes>`. Anything else it refuses with `invalid_token`.
 */
export const scopeToken = (issuer: string, scopes: readonly string[]): string =>
  `${issuer}.${Buffer.from(JSON.stringify(scopes)).toString('base64url')}`;

/** A verifier of {@link scopeToken}s of one issuer (an `async` function, as real verifiers are). */
export function scopeTokenVerifier(issuer: string): TokenVerifier<TestPrincipal> {
  const prefix = `${issuer}.`;
  return async (token) => {
    if (!token.startsWith(prefix)) throw invalidTokenError('The access token is invalid');
    let scopes: unknown;
    try {
      scopes = JSON.parse(Buffer.from(token.slice(prefix.length), 'base64url').toString());
    } catch {
      throw invalidTokenError('The access token is invalid');
    }
    if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) throw invalidTokenError('The access token is invalid');
    return { subject: issuer, scopes };
  };
}
