/**
 * docs/contract.md#verified-readers: a reader is consulted once per call, however often it
 * appears in the chain; a call made with a ctx spread from another call's (`createCaller` inside
 * a resolver, with other headers) is another call, and its principal is its own credential's,
 * never the outer call's.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../src/index.js';
import { invalidTokenError } from '../src/errors-entry.js';

interface Ctx {
  headers: Record<string, string>;
}
const t = initTRPC.context<Ctx>().create();

function setup() {
  const principals: Record<string, Principal & { subject: string }> = {
    admin: { subject: 'admin', scopes: ['me', 'admin'] },
    alice: { subject: 'alice', scopes: ['me'] },
  };
  const asked: string[] = [];
  const auth = oauth2PasswordBearer({
    tokenUrl: '/token',
    scopes: { me: 'Read me', admin: 'Administer' },
    verify: async (token) => {
      asked.push(token);
      const principal = principals[token];
      if (principal === undefined) throw invalidTokenError('The access token is invalid');
      return principal;
    },
  });
  const inner = t.router({
    whoami: t.procedure.use(auth.withScopes('me')).query(({ ctx }) => ctx.principal.subject),
    adminOnly: t.procedure.use(auth).use(auth.requireScopes('admin')).query(({ ctx }) => ctx.principal.subject),
  });
  const callInner = t.createCallerFactory(inner);
  const outer = t.router({
    // Calls the inner router as another user, with a ctx spread from its own.
    asUser: t.procedure
      .use(auth.withScopes('me'))
      .input((value) => value as { token: string; procedure: 'whoami' | 'adminOnly' })
      .query(({ ctx, input }) => callInner({ ...ctx, headers: { authorization: `Bearer ${input.token}` } })[input.procedure]()),
  });
  const as = (token: string) => t.createCallerFactory(outer)({ headers: { authorization: `Bearer ${token}` } });
  return { as, asked };
}

describe('a call made with a ctx spread from another call', () => {
  it("runs as its own credential's principal, not the outer call's", async () => {
    const { as } = setup();
    expect(await as('admin').asUser({ token: 'alice', procedure: 'whoami' })).toBe('alice');
  });

  it("is refused a scope its own principal lacks, though the outer call's principal has it", async () => {
    const { as } = setup();
    const refused = await as('admin').asUser({ token: 'alice', procedure: 'adminOnly' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe('FORBIDDEN');
  });

  it('is refused when its own credential is refused', async () => {
    const { as } = setup();
    const refused = await as('admin').asUser({ token: 'forged', procedure: 'whoami' }).catch((error: unknown) => error);
    expect((refused as TRPCError).code).toBe('UNAUTHORIZED');
  });

  it('with the same credential consults its reader again (a verifier cache answers a token seen before)', async () => {
    const { as, asked } = setup();
    expect(await as('admin').asUser({ token: 'admin', procedure: 'adminOnly' })).toBe('admin');
    expect(asked).toEqual(['admin', 'admin']);
  });

  it('with another credential verifies that one', async () => {
    const { as, asked } = setup();
    expect(await as('admin').asUser({ token: 'alice', procedure: 'whoami' })).toBe('alice');
    expect(asked).toEqual(['admin', 'alice']);
  });
});

// The outer call verified one reader; the inner call's chain has another, optional one, which
// finds no credential there: the outer principal must not meet the inner call's scopes.
describe('a call made with a ctx spread from another call, through another reader', () => {
  const admin: Principal = { scopes: ['me', 'admin'] };
  const outerReader = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { admin: 'Administer' }, verify: async () => admin });
  const optional = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { admin: 'Administer' }, autoError: false, verify: async () => admin });
  const inner = t.router({
    scoped: t.procedure.use(optional).use(optional.requireScopes('admin')).query(({ ctx }) => `ran as ${String(ctx.token)}`),
    scopesFirst: t.procedure.use(optional.requireScopes('admin')).use(optional).query(({ ctx }) => `ran as ${String(ctx.token)}`),
  });
  const callInner = t.createCallerFactory(inner);
  const outer = t.router({
    nested: t.procedure
      .use(outerReader.withScopes('admin'))
      .input((value) => value as 'scoped' | 'scopesFirst')
      .query(({ ctx, input }) => callInner({ ...ctx, headers: {} })[input]()),
  });

  it.each(['scoped', 'scopesFirst'] as const)('%s: is not authenticated without a credential of its own', async (procedure) => {
    const refused = await t
      .createCallerFactory(outer)({ headers: { authorization: 'Bearer admin' } })
      .nested(procedure)
      .catch((error: unknown) => error);
    expect((refused as TRPCError).code).toBe('UNAUTHORIZED');
  });
});
