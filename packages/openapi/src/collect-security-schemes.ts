import { isDeepStrictEqual } from 'node:util';
import type { SecuritySchemeObject } from 'trpc-to-openapi';
import { chainDeclarations } from './chain-declarations.js';
import { SecuritySchemeConflictError } from './security-scheme-conflict-error.js';

/**
 * The `components.securitySchemes` of a document: `given` (the user's own schemes), then the
 * scheme of every security middleware in `procedures`, by scheme name. Readers that share a name
 * must declare the same scheme (a reader and its `autoError: false` twin may); two different
 * schemes under one name throw {@link SecuritySchemeConflictError}.
 *
 * @example
 * ```ts
 * collectSecuritySchemes([router.me, router.items]); // { OAuth2PasswordBearer: { type: 'oauth2', flows: { password: … } } }
 * ```
 */
export function collectSecuritySchemes(
  procedures: readonly { _def: object }[],
  given: Readonly<Record<string, SecuritySchemeObject>> = {},
): Record<string, SecuritySchemeObject> {
  const schemes: Record<string, SecuritySchemeObject> = { ...given };
  for (const procedure of procedures) {
    for (const { declaration } of chainDeclarations(procedure)) {
      const known = schemes[declaration.schemeName];
      if (known === undefined) schemes[declaration.schemeName] = declaration.scheme as SecuritySchemeObject;
      else if (!isDeepStrictEqual({ ...known }, { ...declaration.scheme })) {
        throw new SecuritySchemeConflictError(declaration.schemeName, [known, declaration.scheme]);
      }
    }
  }
  return schemes;
}
