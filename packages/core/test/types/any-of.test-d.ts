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
expectTypeOf(anyOf(ownOptional, externalOptional).autoError).toEqualTypeOf<false>();

// A reader given `autoError` as a plain `boolean` may let a request without a credential through
// (`null`), alone and through anyOf alike, unless another reader surely refuses (at run time
// `autoError` is `readers.some((reader) => reader.autoError)`).
declare const flag: boolean;
const configured = oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes: { me: '' }, schemeName: 'Configured', verify: verifyExternal, autoError: flag });
t.procedure.use(configured).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<External | null>();
});
t.procedure.use(anyOf(ownOptional, configured)).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string | null>();
  expectTypeOf(ctx.principal).toEqualTypeOf<Own | External | null>();
});
expectTypeOf(anyOf(ownOptional, configured).autoError).toEqualTypeOf<boolean>();
// One reader that surely refuses (`autoError: true`, the default) is enough for the group.
expectTypeOf(anyOf(configured, password).autoError).toEqualTypeOf<true>();
expectTypeOf(anyOf(ownOptional, password, configured).autoError).toEqualTypeOf<true>();
t.procedure.use(anyOf(configured, password)).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<External | Own>();
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

// Three readers: the scopes all three declare, any of their principals.
interface Partner extends Principal {
  readonly kind: 'partner';
  readonly scopes: readonly string[];
}
declare const verifyPartner: TokenVerifier<Partner>;
const partner = oauth2PasswordBearer({ tokenUrl: 'p', scopes: { me: '', admin: '' }, schemeName: 'Partner', verify: verifyPartner });
const three = anyOf(password, code, partner);
t.procedure.use(three.withScopes('me')).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<Own | External | Partner>();
  expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly 'me'[]>();
});
expectTypeOf<Parameters<typeof three.requireScopes>[0]>().toEqualTypeOf<'me'>();
// @ts-expect-error `items` is not the third reader's
three.requireScopes('items');
// The principal of every reader goes through `.concat()` too.
t.procedure.concat(either.procedure).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<Own | External>();
});
// Readers that share no scope: requireScopes says so instead of naming `never`.
const disjoint = anyOf(
  oauth2PasswordBearer({ tokenUrl: 'a', scopes: { a: '' }, schemeName: 'DisjointA', verify: verifyOwn }),
  oauth2PasswordBearer({ tokenUrl: 'b', scopes: { b: '' }, schemeName: 'DisjointB', verify: verifyExternal }),
);
// @ts-expect-error no scope is declared by both
disjoint.requireScopes('a');
expectTypeOf<Parameters<typeof disjoint.requireScopes>[0]>().toExtend<'This reader declares no scopes: list them in its `scopes` (or `flows`) option first (for anyOf: in every reader of the group, which requires only the scopes they all declare)'>();
// A reader without `verify` is refused with a message, not `never`.
expectTypeOf<Parameters<typeof anyOf<[typeof password, typeof unverified]>>[1]>().toExtend<"anyOf combines verified readers only: give this reader `verify`">();
