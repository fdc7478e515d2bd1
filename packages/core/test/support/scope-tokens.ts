import { type Principal, type TokenVerifier } from '../../src/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';

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

/** The scopes a {@link scopeToken} of `prefix` grants, or `undefined` when it is not one. */
function grantedBy(token: string, prefix: string): string[] | undefined {
  if (!token.startsWith(prefix)) return undefined;
  let scopes: unknown;
  try {
    scopes = JSON.parse(Buffer.from(token.slice(prefix.length), 'base64url').toString());
  } catch {
    return undefined;
  }
  return Array.isArray(scopes) && scopes.every((scope) => typeof scope === 'string') ? scopes : undefined;
}

/**
 * A verifier of {@link scopeToken}s of one issuer (an `async` function, as real verifiers are).
 * With `peek: true` it also answers accepted tokens synchronously through `peek`, as a cache
 * does, so readers take their synchronous path.
 */
export function scopeTokenVerifier(issuer: string, { peek = false }: { peek?: boolean } = {}): TokenVerifier<TestPrincipal> {
  const prefix = `${issuer}.`;
  const verify = async (token: string): Promise<TestPrincipal> => {
    const scopes = grantedBy(token, prefix);
    if (scopes === undefined) throw invalidTokenError('The access token is invalid');
    return { subject: issuer, scopes };
  };
  if (!peek) return verify;
  return Object.assign(verify, {
    peek: (token: string): TestPrincipal | undefined => {
      const scopes = grantedBy(token, prefix);
      return scopes === undefined ? undefined : { subject: issuer, scopes };
    },
  });
}
