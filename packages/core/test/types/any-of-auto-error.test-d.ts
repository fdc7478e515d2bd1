import { initTRPC } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import { anyOf, oauth2AuthorizationCodeBearer, oauth2PasswordBearer, type Principal, type TokenVerifier } from '../../src/index.js';

// anyOf puts `null` on ctx when no reader surely refuses a request without a credential
// (docs/contract.md#verified-readers; at run time `autoError` is
// `readers.some((reader) => reader.autoError)`). A reader given `autoError` as a plain `boolean`
// may let such a request through, alone (readers.test-d.ts) and through anyOf alike.
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
declare const flag: boolean;
const t = initTRPC.context<{ req: Request }>().create();

const optional = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: '' }, schemeName: 'Own', verify: verifyOwn, autoError: false });
const configured = oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes: { me: '' }, schemeName: 'External', verify: verifyExternal, autoError: flag });

t.procedure.use(configured).query(({ ctx }) => {
  // Alone, the reader is honest: it may let the request through with null.
  expectTypeOf(ctx.principal).toEqualTypeOf<External | null>();
});
t.procedure.use(anyOf(optional, configured)).query(({ ctx }) => {
  // Through anyOf too, unless another reader surely refuses.
  expectTypeOf(ctx.token).toEqualTypeOf<string | null>();
  expectTypeOf(ctx.principal).toEqualTypeOf<Own | External | null>();
});
expectTypeOf(anyOf(optional, configured).autoError).toEqualTypeOf<boolean>();

// One reader that surely refuses is enough for the group to (`autoError: true` by default).
const always = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: '' }, schemeName: 'Always', verify: verifyOwn });
expectTypeOf(anyOf(configured, always).autoError).toEqualTypeOf<true>();
expectTypeOf(anyOf(optional, always, configured).autoError).toEqualTypeOf<true>();
t.procedure.use(anyOf(configured, always)).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<External | Own>();
});
// Every reader `autoError: false`: the group is `false`.
const optionalToo = oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes: { me: '' }, schemeName: 'Optional', verify: verifyExternal, autoError: false });
expectTypeOf(anyOf(optional, optionalToo).autoError).toEqualTypeOf<false>();
