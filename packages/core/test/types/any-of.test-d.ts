import { initTRPC } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import { anyOf, oauth2, oauth2AuthorizationCodeBearer, oauth2PasswordBearer, type Principal, type SecurityScopes, type TokenVerifier } from '../../src/index.js';

// anyOf: one verified reader accepting any of its readers' credentials (docs/contract.md#verified-readers).
interface Own extends Principal {
  readonly kind: 'own';
  readonly scopes: readonly string[];
}
interface External extends Principal {
  readonly kind: 'external';
  readonly scopes: readonly string[];
}
declare const verifyOwn: TokenVerifier<Own>;
declare const verifyExternal: TokenVerifier<External>;
const t = initTRPC.context<{ req: Request }>().create();

const password = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: '', items: '', admin: '' }, schemeName: 'Own', verify: verifyOwn });
const code = oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes: { me: '', items: '' }, schemeName: 'External', verify: verifyExternal });
const either = anyOf(password, code);

// The principal is any of theirs, the token a string (both refuse a missing credential).
t.procedure.use(either).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string>();
  expectTypeOf(ctx.principal).toEqualTypeOf<Own | External>();
});

// Scopes: only those every reader declares; they accumulate as for any reader.
t.procedure
  .use(either)
  .use(either.requireScopes('me'))
  .use(either.requireScopes('items'))
  .query(({ ctx }) => {
    expectTypeOf(ctx.securityScopes).toEqualTypeOf<SecurityScopes<'me' | 'items'>>();
  });
t.procedure.use(either.withScopes('me', 'items')).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<Own | External>();
  expectTypeOf(ctx.securityScopes).toEqualTypeOf<SecurityScopes<'me' | 'items'>>();
});
// @ts-expect-error -- `admin` is the first reader's only: the second scheme does not declare it
either.requireScopes('admin');
// @ts-expect-error -- not a scope of either
either.withScopes('nope');

// Optional only when every reader is.
const ownOptional = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: '' }, schemeName: 'OwnOptional', verify: verifyOwn, autoError: false });
const externalOptional = oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes: { me: '' }, schemeName: 'ExternalOptional', verify: verifyExternal, autoError: false });
t.procedure.use(anyOf(ownOptional, externalOptional)).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string | null>();
  expectTypeOf(ctx.principal).toEqualTypeOf<Own | External | null>();
});
t.procedure.use(anyOf(ownOptional, code)).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<Own | External>();
});

// Only verified readers combine: anyOf tries their verifiers.
const unverified = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: '' } });
// @ts-expect-error -- a reader without `verify`
anyOf(password, unverified);
// @ts-expect-error -- at least two readers
anyOf(password);
// @ts-expect-error -- not a reader
anyOf(password, verifyOwn);
// A base reader puts `authorization`: it combines with base readers, and anyOf refuses a mix at run time.
const base = oauth2({ flows: { clientCredentials: { tokenUrl: 'cc', scopes: { svc: '' } } }, verify: verifyOwn });
expectTypeOf(anyOf(base, oauth2({ flows: { clientCredentials: { tokenUrl: 'cc', scopes: { svc: '' } } }, schemeName: 'B', verify: verifyExternal })).schemeName).toEqualTypeOf<string>();
