/**
 * The token endpoint's input, FastAPI's `OAuth2PasswordRequestForm` and its strict variant
 * `OAuth2PasswordRequestFormStrict`, with the wire field list both read.
 * See docs/contract.md#the-password-request-form.
 * @module
 */
import { z } from 'zod/v4';
import { oneValuePerField, secretField, splitScopes, textField } from './form-rules.js';

/** The only `grant_type` the password request form accepts, as a whole-string pattern. */
const PASSWORD_GRANT_TYPE = /^password$/;

/** The wire names of the password request form (RFC 6749 §4.3.2, §2.3.1). */
export const FORM_FIELDS = ['grant_type', 'username', 'password', 'scope', 'client_id', 'client_secret'] as const;

/** One of {@link FORM_FIELDS}. */
export type FormField = (typeof FORM_FIELDS)[number];

/** The password request form's fields, by {@link oneValuePerField}'s rules. */
const passwordFormFields = oneValuePerField(FORM_FIELDS);

/** `grant_type`, whole-string `password` (pattern `^password$` in the OpenAPI document). */
const grantTypeField = () => textField('grant_type').regex(PASSWORD_GRANT_TYPE, { error: 'grant_type: must be "password"' });

/**
 * Builds a form schema: normalise the body (last value wins, empty means absent), validate the
 * wire fields, then derive `scopes` and the `null` defaults. The two forms differ only in `grantType`.
 */
function formSchema(grantType: z.ZodType<string | undefined>) {
  const wire = z.object({
    grant_type: grantType,
    username: textField('username'),
    password: secretField('password'),
    scope: textField('scope').optional(),
    client_id: textField('client_id').optional(),
    client_secret: secretField('client_secret').optional(),
  });
  return z.preprocess(passwordFormFields, wire).transform((form) => {
    const scope = form.scope ?? '';
    return {
      grant_type: (form.grant_type ?? null) as 'password' | null,
      username: form.username,
      password: form.password,
      scope,
      scopes: splitScopes(scope),
      client_id: form.client_id ?? null,
      client_secret: form.client_secret ?? null,
    };
  });
}

/** What a client may send to the token endpoint: every field is text. */
export interface PasswordRequestFormInput {
  grant_type?: string | null;
  username: string;
  password: string;
  scope?: string | null;
  client_id?: string | null;
  client_secret?: string | null;
}

/** The permissive form, parsed: `grant_type` is `'password'` or `null`. */
export interface PasswordRequestForm {
  grant_type: 'password' | null;
  username: string;
  password: string;
  /** The `scope` field as sent (`''` when absent). */
  scope: string;
  /** `scope` split on whitespace, without empty entries. */
  scopes: string[];
  client_id: string | null;
  client_secret: string | null;
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
export const passwordRequestForm: z.ZodType<PasswordRequestForm, PasswordRequestFormInput | FormData | URLSearchParams> =
  formSchema(grantTypeField().optional()) as never;

/** What a client must send to a strict token endpoint: `grant_type` is required. */
export interface PasswordRequestFormStrictInput extends PasswordRequestFormInput {
  grant_type: string;
}

/** The strict form, parsed: `grant_type` is always `'password'`. */
export interface PasswordRequestFormStrict extends PasswordRequestForm {
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
