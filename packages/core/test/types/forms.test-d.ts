import { initTRPC } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import {
  passwordRequestForm,
  passwordRequestFormStrict,
  type PasswordRequestForm,
  type PasswordRequestFormStrict,
} from '../../src/index.js';

const t = initTRPC.create();

t.procedure.input(passwordRequestForm).mutation(({ input }) => {
  expectTypeOf(input).toEqualTypeOf<PasswordRequestForm>();
  expectTypeOf(input.grant_type).toEqualTypeOf<'password' | null>();
  expectTypeOf(input.scopes).toEqualTypeOf<string[]>();
  expectTypeOf(input.client_id).toEqualTypeOf<string | null>();
  expectTypeOf(input.client_secret).toEqualTypeOf<string | null>();
  expectTypeOf(input.username).toEqualTypeOf<string>();
  expectTypeOf(input.password).toEqualTypeOf<string>();
});

t.procedure.input(passwordRequestFormStrict).mutation(({ input }) => {
  expectTypeOf(input).toEqualTypeOf<PasswordRequestFormStrict>();
  expectTypeOf(input.grant_type).toEqualTypeOf<'password'>();
});

const router = t.router({
  token: t.procedure.input(passwordRequestForm).mutation(({ input }) => input.username),
  strict: t.procedure.input(passwordRequestFormStrict).mutation(({ input }) => input.username),
});
const caller = t.createCallerFactory(router)({});
void caller.token({ username: 'a', password: 'b' });
void caller.token(new URLSearchParams());
void caller.token(new FormData());
// @ts-expect-error the password is required
void caller.token({ username: 'a' });
// @ts-expect-error fields are text
void caller.token({ username: 'a', password: 1 });
// @ts-expect-error the strict form requires grant_type
void caller.strict({ username: 'a', password: 'b' });
void caller.strict({ grant_type: 'password', username: 'a', password: 'b' });
