import type { z } from 'zod';
import { formSchema, grantTypeField, type ParsedFormFields } from './form-schema.js';
import type { PasswordRequestFormInput } from './password-request-form.js';

/**
 * What a client must send to a strict token endpoint: `grant_type` is required.
 *
 * @example
 * ```ts
 * const body: PasswordRequestFormStrictInput = { grant_type: 'password', username: 'a', password: 'b' };
 * ```
 */
export interface PasswordRequestFormStrictInput extends PasswordRequestFormInput {
  grant_type: string;
}

/**
 * The strict form, parsed: `grant_type` is always `'password'`.
 *
 * @example
 * ```ts
 * const form: PasswordRequestFormStrict = passwordRequestFormStrict.parse({ grant_type: 'password', username: 'a', password: 'b' });
 * ```
 */
export interface PasswordRequestFormStrict extends ParsedFormFields {
  grant_type: 'password';
}

/**
 * The strict token endpoint parser (FastAPI's `OAuth2PasswordRequestFormStrict`): as
 * `passwordRequestForm`, but `grant_type=password` is required, as RFC 6749 §4.3.2 says.
 *
 * @example
 * ```ts
 * const token = t.procedure.input(passwordRequestFormStrict).mutation(({ input }) => input.grant_type); // 'password'
 * ```
 */
export const passwordRequestFormStrict: z.ZodType<
  PasswordRequestFormStrict,
  PasswordRequestFormStrictInput | FormData | URLSearchParams
> = formSchema(grantTypeField()) as never;
