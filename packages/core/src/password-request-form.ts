import type { z } from 'zod';
import { formSchema, grantTypeField, type ParsedFormFields } from './form-schema.js';

/**
 * What a client may send to the token endpoint: every field is text.
 *
 * @example
 * ```ts
 * const body: PasswordRequestFormInput = { grant_type: 'password', username: 'alice', password: 's3cret' };
 * ```
 */
export interface PasswordRequestFormInput {
  grant_type?: string | null;
  username: string;
  password: string;
  scope?: string | null;
  client_id?: string | null;
  client_secret?: string | null;
}

/**
 * The permissive form, parsed: `grant_type` is `'password'` or `null`.
 *
 * @example
 * ```ts
 * const form: PasswordRequestForm = passwordRequestForm.parse({ username: 'a', password: 'b' });
 * form.scopes; // []
 * ```
 */
export interface PasswordRequestForm extends ParsedFormFields {
  grant_type: 'password' | null;
}

/**
 * The token endpoint's input parser (FastAPI's `OAuth2PasswordRequestForm`): accepts a plain
 * object, `URLSearchParams` or `FormData`. `grant_type` may be omitted; when sent it must be
 * exactly `password`. Failures are tRPC `BAD_REQUEST` (HTTP 400) naming the wire field.
 *
 * @example
 * ```ts
 * const token = t.procedure.input(passwordRequestForm).mutation(({ input }) => {
 *   input.username; // string
 *   input.scopes;   // string[]
 * });
 * ```
 */
export const passwordRequestForm: z.ZodType<
  PasswordRequestForm,
  PasswordRequestFormInput | FormData | URLSearchParams
> = formSchema(grantTypeField().optional()) as never;
