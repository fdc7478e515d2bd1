import { initTRPC, tracked } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import { oauth2PasswordBearer, type Principal, type SecurityReaderOptions, type TokenVerifier, type VerifyOptions } from '../../src/index.js';
import { tokenExpiredError } from '../../src/errors-entry.js';

// Subscriptions carry the same ctx as queries: the token, the principal and the scopes
// (docs/contract.md#subscriptions).
interface User extends Principal {
  readonly subject: string;
  readonly scopes: readonly string[];
}
declare const verifyUser: TokenVerifier<User>;
const t = initTRPC.context<{ req: unknown; info: unknown }>().create();
const auth = oauth2PasswordBearer({
  tokenUrl: 'token',
  scopes: { items: 'Read items' },
  verify: verifyUser,
  recheckInterval: 30_000,
  allowCredentialInUrl: false,
  makeTokenExpiredError: () => tokenExpiredError(),
});

t.procedure.use(auth.withScopes('items')).subscription(async function* ({ ctx }) {
  expectTypeOf(ctx.token).toEqualTypeOf<string>();
  expectTypeOf(ctx.principal).toEqualTypeOf<User>();
  expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly 'items'[]>();
  // Aborts once the stream ended, whichever way; absent on queries and mutations.
  expectTypeOf(ctx.streamSignal).toEqualTypeOf<AbortSignal | undefined>();
  yield tracked('1', ctx.principal.subject);
});

// Behind a reader without `verify` nothing guards the stream: there is no streamSignal.
const unverified = oauth2PasswordBearer({ tokenUrl: 'token' });
t.procedure.use(unverified).subscription(async function* ({ ctx }) {
  expectTypeOf(ctx).not.toHaveProperty('streamSignal');
  yield ctx.token;
});

// The options are what they say: milliseconds, a flag, factories of errors.
expectTypeOf<SecurityReaderOptions<true, User>['recheckInterval']>().toEqualTypeOf<number | undefined>();
expectTypeOf<SecurityReaderOptions<true, User>['allowCredentialInUrl']>().toEqualTypeOf<boolean | undefined>();
// @ts-expect-error an interval is a number of milliseconds, not a string
oauth2PasswordBearer({ tokenUrl: 'token', verify: verifyUser, recheckInterval: '30s' });

// A verifier is told when its answer must not come from a cache.
expectTypeOf<VerifyOptions['fresh']>().toEqualTypeOf<boolean | undefined>();
