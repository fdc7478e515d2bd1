import { initTRPC } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import { oauth2, oauth2PasswordBearer, type SecurityScopes } from '../../src/index.js';

const t = initTRPC.context<{ req: Request }>().create();
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Read me', items: 'Read items' } });
const optional = oauth2PasswordBearer({ tokenUrl: 'token', autoError: false });
const base = oauth2({ flows: { clientCredentials: { tokenUrl: 'cc', scopes: { svc: 'Service' } } } });

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
