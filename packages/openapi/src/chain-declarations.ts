import { SECURITY, type SecurityDeclaration } from '@trpc-oauth2/core/protocol';
import type { TRPCError } from '@trpc/server';

/**
 * One security middleware of a procedure's chain: what it declares and, for a reader, the error
 * it answers an unauthenticated request with (`undefined` when it lets such requests through).
 *
 * @example
 * ```ts
 * const link: ChainDeclaration = { declaration: auth[SECURITY], notAuthenticatedError: () => auth.makeNotAuthenticatedError() };
 * ```
 */
export interface ChainDeclaration {
  declaration: SecurityDeclaration;
  notAuthenticatedError?: () => TRPCError;
}

interface ReaderLike {
  [SECURITY]?: SecurityDeclaration;
  autoError?: boolean;
  makeNotAuthenticatedError?: () => TRPCError;
}

/**
 * The security middlewares of a procedure's chain, in the order they run.
 *
 * @example
 * ```ts
 * chainDeclarations(router.me).map((link) => link.declaration.schemeName); // ['OAuth2PasswordBearer', 'OAuth2PasswordBearer']
 * ```
 */
export function chainDeclarations(procedure: { _def: object }): ChainDeclaration[] {
  const middlewares = (procedure._def as { middlewares?: readonly unknown[] }).middlewares ?? [];
  const chain: ChainDeclaration[] = [];
  for (const middleware of middlewares as readonly (ReaderLike | null)[]) {
    const declaration = middleware?.[SECURITY];
    if (declaration === undefined) continue;
    const reader = middleware!;
    const refuses = declaration.optional === false && typeof reader.makeNotAuthenticatedError === 'function';
    chain.push(refuses ? { declaration, notAuthenticatedError: () => reader.makeNotAuthenticatedError!() } : { declaration });
  }
  return chain;
}
