import { SECURITY, expandDeclaration, getProcedureSecurity, type ProcedureSecurity, type SecurityDeclaration } from '@trpc-oauth2/core/protocol';
import type { TRPCError } from '@trpc/server';

/**
 * A procedure's security as the document needs it: core's {@link ProcedureSecurity} (schemes,
 * requirement, optional), plus what a document writes beyond it, in the order the chain runs:
 * - `declarations`: every security declaration (an `anyOf` step's once per scheme it accepts), so
 *   that two different schemes under one name are caught even inside one chain, and scopes are
 *   listed in the order they accumulate;
 * - `notAuthenticatedErrors`: for each reader that refuses an unauthenticated request, the error
 *   it answers with (so an overridden `makeNotAuthenticatedError` is documented as it is).
 *
 * @example
 * ```ts
 * const security: ChainSecurity = { ...getProcedureSecurity(router.me)!, declarations: [auth[SECURITY]], notAuthenticatedErrors: [() => auth.makeNotAuthenticatedError()] };
 * ```
 */
export interface ChainSecurity extends ProcedureSecurity {
  readonly declarations: readonly SecurityDeclaration[];
  readonly notAuthenticatedErrors: readonly (() => TRPCError)[];
}

interface ReaderLike {
  [SECURITY]?: SecurityDeclaration;
  makeNotAuthenticatedError?: () => TRPCError;
}

/**
 * The security of a procedure's chain, read once (`undefined` without a reader or a scope):
 * `getProcedureSecurity`'s result with the two fields of {@link ChainSecurity} it does not carry.
 * See `docs/contract.md#openapi`.
 *
 * @example
 * ```ts
 * chainSecurity(router.me)?.declarations.map((declaration) => declaration.schemeName); // ['OAuth2PasswordBearer', 'OAuth2PasswordBearer']
 * ```
 */
export function chainSecurity(procedure: { _def: object }): ChainSecurity | undefined {
  const security = getProcedureSecurity(procedure);
  if (security === undefined) return undefined;
  const declarations: SecurityDeclaration[] = [];
  const notAuthenticatedErrors: (() => TRPCError)[] = [];
  for (const middleware of ((procedure._def as { middlewares?: readonly unknown[] }).middlewares ?? []) as readonly (ReaderLike | null)[]) {
    const declaration = middleware?.[SECURITY];
    if (declaration === undefined) continue;
    declarations.push(...expandDeclaration(declaration));
    const refuse = middleware!.makeNotAuthenticatedError;
    if (declaration.optional === false && typeof refuse === 'function') notAuthenticatedErrors.push(() => refuse.call(middleware));
  }
  return { ...security, declarations, notAuthenticatedErrors };
}
