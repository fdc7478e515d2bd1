import { initTRPC } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import { oauth2, oauth2PasswordBearer, type SecurityScopes } from '../../src/index.js';

const t = initTRPC.context<{ req: Request }>().create();
const verify = async (token: string) => ({ subject: token, scopes: ['me'] });
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Read me', items: 'Read items' }, verify });
const optional = oauth2PasswordBearer({ tokenUrl: 'token', autoError: false });
const base = oauth2({ flows: { clientCredentials: { tokenUrl: 'cc', scopes: { svc: 'Service' } } }, manualScopeCheck: true });

t.procedure.use(auth).use(auth.requireScopes('me')).use(auth.requireScopes('items')).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string>();
  expectTypeOf(ctx.securityScopes).toEqualTypeOf<SecurityScopes<'me' | 'items'>>();
});
t.procedure.use(optional).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string | null>();
});
t.procedure.use(base).use(base.requireScopes('svc')).query(({ ctx }) => {
  expectTypeOf(ctx.authorization).toEqualTypeOf<string>();
  expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly 'svc'[]>();
});
// @ts-expect-error 'admin' is not declared by the reader
auth.requireScopes('admin');
t.procedure.concat(auth.procedure).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string>();
});

// autoError given as a plain boolean: the value may be null.
declare const flag: boolean;
t.procedure.use(oauth2PasswordBearer({ tokenUrl: 't', autoError: flag })).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string | null>();
});
t.procedure.use(oauth2({ autoError: false })).query(({ ctx }) => {
  expectTypeOf(ctx.authorization).toEqualTypeOf<string | null>();
});
// A reader without declared scopes accepts none.
// @ts-expect-error no scope is declared
optional.requireScopes('me');
// …and says so, instead of naming `never`.
expectTypeOf<Parameters<typeof optional.requireScopes>[0]>().toExtend<'This reader declares no scopes: list them in its `scopes` (or `flows`) option first (for anyOf: in every reader of the group, which requires only the scopes they all declare)'>();
expectTypeOf<Parameters<typeof optional.withScopes>[0]>().toExtend<'This reader declares no scopes: list them in its `scopes` (or `flows`) option first (for anyOf: in every reader of the group, which requires only the scopes they all declare)'>();
// @ts-expect-error at least one scope
auth.requireScopes();
// Two procedures from one base keep their own unions.
const authed = t.procedure.use(auth).use(auth.requireScopes('me'));
authed.use(auth.requireScopes('items')).query(({ ctx }) => {
  expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly ('me' | 'items')[]>();
});
authed.query(({ ctx }) => {
  expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly 'me'[]>();
  expectTypeOf(ctx.securityScopes.scopeStr).toEqualTypeOf<string>();
});
// Scopes of every flow of the base reader are accepted, others are not.
const multi = oauth2({
  flows: {
    clientCredentials: { tokenUrl: 'cc', scopes: { svc: 'Service' } },
    implicit: { authorizationUrl: 'auth', scopes: { read: 'Read' } },
  },
  manualScopeCheck: true,
});
multi.requireScopes('svc', 'read');
// @ts-expect-error 'write' is declared by no flow
multi.requireScopes('write');

// withScopes: the reader and its scopes in one step, accumulating like requireScopes.
t.procedure.use(auth.withScopes('me')).use(auth.requireScopes('items')).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string>();
  expectTypeOf(ctx.securityScopes).toEqualTypeOf<SecurityScopes<'me' | 'items'>>();
});
t.procedure.use(auth.requireScopes('items')).use(auth.withScopes('me')).query(({ ctx }) => {
  expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly ('me' | 'items')[]>();
});
t.procedure.use(oauth2PasswordBearer({ tokenUrl: 't', scopes: { a: '' }, autoError: false, manualScopeCheck: true }).withScopes('a')).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string | null>();
});
// @ts-expect-error 'admin' is not declared by the reader
auth.withScopes('admin');

// A scopes step made outside the `.use()` it is given to (kept in a variable and reused) cannot see
// the scopes required before it, which tRPC's ctx then loses from the type: its scopes are any
// names, never only its own (at run time they are the chain's: `['me', 'items']` below).
{
  const needMe = auth.requireScopes('me');
  const needItems = auth.requireScopes('items');
  const withItems = auth.withScopes('items');
  t.procedure.use(auth).use(needMe).use(needItems).query(({ ctx }) => {
    expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly string[]>();
    expectTypeOf(ctx.securityScopes.scopes).not.toEqualTypeOf<readonly 'items'[]>();
  });
  t.procedure.use(auth.requireScopes('me')).use(withItems).query(({ ctx }) => {
    expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly string[]>();
    expectTypeOf(ctx.token).toEqualTypeOf<string>();
  });
  // A step written in its `.use()` call after one made outside carries the wider type on.
  t.procedure.use(needMe).use(auth.requireScopes('items')).query(({ ctx }) => {
    expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly string[]>();
  });
  // Every step written in its `.use()` call: the union is exact, as before.
  t.procedure.use(auth.requireScopes('me')).use(auth.requireScopes('items')).query(({ ctx }) => {
    expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly ('me' | 'items')[]>();
  });
}
