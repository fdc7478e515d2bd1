/**
 * Gathers `components.securitySchemes` from the user's schemes and every chain's readers, and
 * refuses two different schemes under one name.
 * @module
 */
import type { SecuritySchemeObject } from 'trpc-to-openapi';
import type { ProcedureSecurity } from '@trpc-oauth2/core/protocol';
import { SecuritySchemeConflictError } from './security-scheme-conflict-error.js';
import { dpopSchemeOf } from './dpop-scheme.js';

/** Two schemes are the same when they are equal as JSON values (key order aside). */
function sameScheme(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameScheme((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * The `components.securitySchemes` of a document: `given` (the user's own schemes), then the
 * scheme of every security middleware of the chains in `securities`, by scheme name. Readers that share a name
 * must declare the same scheme (a reader and its `autoError: false` twin may); a reader that
 * accepts DPoP adds its HTTP `DPoP` scheme (`<name>DPoP`); two different
 * schemes under one name throw {@link SecuritySchemeConflictError}.
 */
export function collectSecuritySchemes(
  securities: readonly (ProcedureSecurity | undefined)[],
  given: Readonly<Record<string, SecuritySchemeObject>> = {},
): Record<string, SecuritySchemeObject> {
  const schemes: Record<string, SecuritySchemeObject> = { ...given };
  const add = (name: string, scheme: SecuritySchemeObject) => {
    const known = schemes[name];
    if (known === undefined) schemes[name] = scheme;
    else if (!sameScheme(known, scheme)) throw new SecuritySchemeConflictError(name, [known, scheme]);
  };
  for (const security of securities) {
    for (const declaration of security?.declarations ?? []) {
      add(declaration.schemeName, declaration.scheme as SecuritySchemeObject);
      // A reader that accepts DPoP: its HTTP `DPoP` scheme beside (docs/contract.md#dpop).
      const dpop = dpopSchemeOf(declaration);
      if (dpop !== undefined) add(dpop.name, dpop.scheme);
    }
  }
  return schemes;
}
