/**
 * The token endpoint's input, FastAPI's `OAuth2PasswordRequestForm` and its strict variant
 * `OAuth2PasswordRequestFormStrict`, with the wire field list both read, and the form rules and
 * field builders every form of the package (the grant and revocation forms too) is made with.
 * See docs/contract.md#the-password-request-form.
 * @module
 */
import { z } from 'zod/v4';

/** The only `grant_type` the password request form accepts, as a whole-string pattern. */
const PASSWORD_GRANT_TYPE = /^password$/;

/**
 * Separates scopes in a `scope` form field (RFC 6749 §3.3 says one space; any run of
 * whitespace is accepted, as FastAPI does).
 */
const SCOPE_SEPARATOR = /\s+/;

/** A `scope` field's scopes: split on whitespace, without empty entries. Every grant's form splits it so. */
export const splitScopes = (scope: string): string[] => scope.split(SCOPE_SEPARATOR).filter(Boolean);

/**
 * The wire names of the password request form (RFC 6749 §4.3.2, §2.3.1).
 *
 * @example
 * ```ts
 * FORM_FIELDS.includes('client_secret'); // true
 * ```
 */
export const FORM_FIELDS = ['grant_type', 'username', 'password', 'scope', 'client_id', 'client_secret'] as const;

/**
 * One of {@link FORM_FIELDS}.
 *
 * @example
 * ```ts
 * const field: FormField = 'grant_type';
 * ```
 */
export type FormField = (typeof FORM_FIELDS)[number];

interface MultiValued {
  getAll(name: string): unknown[];
}

/**
 * The form rules of every form here (docs/contract.md#the-password-request-form), as a
 * preprocessor of the fields `names`: reduces a body to one value per field before validation,
 * the last value of a field sent twice winning, an empty value (or `null`) counting as not sent.
 * Accepts `URLSearchParams`, `FormData` and plain objects; anything else is passed on for the
 * schema to refuse. Unknown fields are dropped. The token endpoint's grant forms use it too.
 */
export function formFieldsOf(names: readonly string[]): (input: unknown) => unknown {
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
    const fields: Record<string, unknown> = {};
    const multi = typeof (input as Partial<MultiValued>).getAll === 'function';
    for (const name of names) {
      const value = multi ? (input as MultiValued).getAll(name).at(-1) : (input as Record<string, unknown>)[name];
      if (value !== undefined && value !== null && value !== '') fields[name] = value;
    }
    return fields;
  };
}

/** The password request form's fields, by {@link formFieldsOf}'s rules. */
const formFields = formFieldsOf(FORM_FIELDS);

/**
 * A text field whose errors name the wire field, and never quote what was sent (it may be a
 * secret). Every form here builds its fields with it.
 */
export const textField = (field: string) =>
  z.string({
    error: (issue) => (issue.input === undefined ? `${field}: field required` : `${field}: must be text`),
  });

/** `grant_type`, whole-string `password` (pattern `^password$` in the OpenAPI document). */
const grantTypeField = () => textField('grant_type').regex(PASSWORD_GRANT_TYPE, { error: 'grant_type: must be "password"' });

/** A secret field: `format: password` in the OpenAPI document. */
export const secretField = (field: string) => textField(field).meta({ format: 'password' });

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
  return z.preprocess(formFields, wire).transform((form) => {
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
