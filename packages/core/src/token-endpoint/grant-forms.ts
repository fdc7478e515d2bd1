/**
 * The forms of the token endpoint's grants (RFC 6749 §4.1.3, §4.3.2, §4.4.2, §6; RFC 7636 §4.5):
 * each a parser with the password request form's conventions and the wire fields it reads, so the
 * token endpoint can dispatch on `grant_type` and the OpenAPI document can list every field.
 * See docs/contract.md#token-responses.
 * @module
 */
import { z } from 'zod/v4';
import { oneValuePerField, secretField, splitScopes, textField } from '../form-rules.js';
import { FORM_FIELDS, passwordRequestForm, type PasswordRequestForm, type PasswordRequestFormInput } from '../password-request-form.js';
import type { TypeError } from '../type-error.js';

/** The fields every grant's form reads besides its own: the scope and the client's credentials (RFC 6749 §2.3.1). */
const COMMON_FIELDS = ['scope', 'client_id', 'client_secret'] as const;

/** The fields {@link defineGrantForm} reads for every grant, which a grant's own fields cannot name again. */
type ReadForEveryGrant = 'grant_type' | (typeof COMMON_FIELDS)[number];

/**
 * How one wire field of a grant's form is documented: whether the grant requires it, whether it
 * is a secret (`format: password`), and an example value.
 */
export interface GrantField {
  readonly required: boolean;
  readonly secret?: boolean;
  readonly description?: string;
  readonly example?: string;
}

/**
 * A grant's form: its `grant_type`, the parser of its requests and the wire fields it reads.
 * The token endpoint parses a request with `schema` once `grant_type` names this grant.
 */
export interface GrantForm<TGrantType extends string, TForm, TInput = unknown> {
  readonly grantType: TGrantType;
  readonly schema: z.ZodType<TForm, TInput>;
  readonly fields: Readonly<Record<string, GrantField>>;
}

/**
 * What every grant's parsed form carries: `grant_type`, the `scope` field as sent (`''` when
 * absent) and split on whitespace, and the form's client credentials (`null` when absent).
 */
export interface GrantRequestFormBase<TGrantType extends string> {
  grant_type: TGrantType;
  scope: string;
  scopes: string[];
  client_id: string | null;
  client_secret: string | null;
}

/**
 * The parsed form of a grant defined with {@link defineGrantForm}: the common fields, each
 * required field as text and each optional one as text or `null`.
 */
export type DefinedGrantForm<TGrantType extends string, TRequired extends string, TOptional extends string> = GrantRequestFormBase<TGrantType> & {
  [K in TRequired]: string;
} & { [K in TOptional]: string | null };

/** What a client sends for a grant defined with {@link defineGrantForm}, before parsing. */
export type DefinedGrantFormInput<TGrantType extends string, TRequired extends string, TOptional extends string> = { grant_type: TGrantType } & {
  [K in TRequired]: string;
} & { [K in TOptional | (typeof COMMON_FIELDS)[number]]?: string | null };

/**
 * The fields of a grant for {@link defineGrantForm}: those it requires and those it may carry,
 * each with how it is documented (`secret` fields are `format: password`).
 */
export interface GrantFormFields<TRequired extends string, TOptional extends string> {
  required: { readonly [K in TRequired]: Omit<GrantField, 'required'> };
  optional?: { readonly [K in TOptional]: Omit<GrantField, 'required'> };
}

/**
 * `unknown` when a grant's own fields leave out those read for every grant, a readable error
 * naming them otherwise.
 */
type OwnFieldsOnly<TField extends string> = [Extract<TField, ReadForEveryGrant>] extends [never]
  ? unknown
  : TypeError<`${Extract<TField, ReadForEveryGrant>} is read for every grant: leave it out of the grant's own fields`>;

/**
 * Defines the form of a grant: `grant_type` must be exactly `grantType`; the `required` fields
 * must be sent, the `optional` ones may be; `scope`, `client_id` and `client_secret` are read
 * as for every grant, so neither list may name them, nor `grant_type` (such a definition throws
 * a `TypeError`, and does not compile). The form's conventions are the password request form's: a plain object,
 * `URLSearchParams` or `FormData`; the last of repeated values wins; an empty value counts as
 * absent; errors name the field (`code: field required`) and never quote what was sent.
 *
 * @example
 * ```ts
 * const deviceCodeGrantForm = defineGrantForm('urn:ietf:params:oauth:grant-type:device_code', {
 *   required: { device_code: { example: 'GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS' } },
 * });
 * ```
 */
export function defineGrantForm<TGrantType extends string, TRequired extends string, TOptional extends string = never>(
  grantType: TGrantType,
  fields: GrantFormFields<TRequired, TOptional> & OwnFieldsOnly<TRequired | TOptional>,
): GrantForm<TGrantType, DefinedGrantForm<TGrantType, TRequired, TOptional>, DefinedGrantFormInput<TGrantType, TRequired, TOptional> | FormData | URLSearchParams> {
  const required = Object.keys(fields.required) as TRequired[];
  const optional = Object.keys(fields.optional ?? {}) as TOptional[];
  // The shape below sets these fields for every grant after the grant's own: one named again would
  // lose what its definition says (a required `client_id` read as absent, typed as sent; a
  // `grant_type` no longer checked), unseen (docs/contract.md#token-responses).
  for (const name of [...required, ...optional] as string[]) {
    if (name === 'grant_type' || (COMMON_FIELDS as readonly string[]).includes(name)) {
      throw new TypeError(`defineGrantForm: ${name} is read for every grant: leave it out of the grant's own fields`);
    }
  }
  const documented: Record<string, GrantField> = {};
  const shape: Record<string, z.ZodType> = {
    grant_type: textField('grant_type').refine((value) => value === grantType, { error: `grant_type: must be "${grantType}"` }),
  };
  for (const name of required) {
    const field = (fields.required as Record<string, Omit<GrantField, 'required'>>)[name]!;
    documented[name] = { ...field, required: true };
    shape[name] = field.secret ? secretField(name) : textField(name);
  }
  for (const name of optional) {
    const field = (fields.optional as Record<string, Omit<GrantField, 'required'>>)[name]!;
    documented[name] = { ...field, required: false };
    shape[name] = (field.secret ? secretField(name) : textField(name)).optional();
  }
  shape.scope = textField('scope').optional();
  shape.client_id = textField('client_id').optional();
  shape.client_secret = secretField('client_secret').optional();
  documented.scope = { required: false, description: 'Scopes asked for, separated by spaces' };
  documented.client_id = { required: false };
  documented.client_secret = { required: false, secret: true };
  const names = ['grant_type', ...required, ...optional, ...COMMON_FIELDS];
  const schema = z.preprocess(oneValuePerField(names), z.object(shape)).transform((form: Record<string, unknown>) => {
    // Every key set in one order, never a spread followed by keys the form lacks: on Node 20
    // that gives each parsed form a hidden class of its own, garbage outside the young
    // generation on every token request (BENCHMARKS.md#what-promotes-a-request).
    const parsed: Record<string, unknown> = { grant_type: grantType };
    for (const name of required) parsed[name] = form[name];
    for (const name of optional) parsed[name] = form[name] ?? null;
    const scope = (form.scope as string | undefined) ?? '';
    parsed.scope = scope;
    parsed.scopes = splitScopes(scope);
    parsed.client_id = form.client_id ?? null;
    parsed.client_secret = form.client_secret ?? null;
    return parsed;
  });
  return { grantType, schema: schema as never, fields: Object.freeze(documented) };
}

/**
 * The password grant's form (RFC 6749 §4.3.2): core's `passwordRequestForm`, whose `grant_type`
 * may be left out (the token endpoint decides whether a request without one is a password grant).
 *
 * @example
 * ```ts
 * passwordGrantForm.schema.parse({ username: 'alice', password: 'wonderland' }).scopes; // []
 * ```
 */
export const passwordGrantForm: GrantForm<'password', PasswordRequestForm, PasswordRequestFormInput | FormData | URLSearchParams> = {
  grantType: 'password',
  schema: passwordRequestForm,
  fields: Object.freeze(
    Object.fromEntries(
      FORM_FIELDS.filter((name) => name !== 'grant_type').map((name) => [
        name,
        {
          required: name === 'username' || name === 'password',
          secret: name === 'password' || name === 'client_secret',
          ...(name === 'username' ? { example: 'alice' } : {}),
          ...(name === 'scope' ? { description: 'Scopes asked for, separated by spaces' } : {}),
        },
      ]),
    ),
  ),
};

/** A parsed refresh request (RFC 6749 §6). */
export type RefreshTokenRequestForm = DefinedGrantForm<'refresh_token', 'refresh_token', never>;

/**
 * The refresh grant's form (RFC 6749 §6): `refresh_token` required, `scope` to narrow the grant.
 *
 * @example
 * ```ts
 * refreshTokenGrantForm.schema.parse({ grant_type: 'refresh_token', refresh_token: 'r1', scope: 'me' }).scopes; // ['me']
 * ```
 */
export const refreshTokenGrantForm = defineGrantForm('refresh_token', {
  required: { refresh_token: { secret: true, description: 'The refresh token of an earlier token response' } },
});

/** A parsed client credentials request (RFC 6749 §4.4.2). */
export type ClientCredentialsRequestForm = DefinedGrantForm<'client_credentials', never, never>;

/**
 * The client credentials grant's form (RFC 6749 §4.4.2): only `scope` and the client's credentials.
 *
 * @example
 * ```ts
 * clientCredentialsGrantForm.schema.parse({ grant_type: 'client_credentials', scope: 'svc' }).scopes; // ['svc']
 * ```
 */
export const clientCredentialsGrantForm = defineGrantForm('client_credentials', { required: {} });

/** A parsed authorization code request (RFC 6749 §4.1.3, with RFC 7636's `code_verifier`). */
export type AuthorizationCodeRequestForm = DefinedGrantForm<'authorization_code', 'code', 'redirect_uri' | 'code_verifier'>;

/**
 * The authorization code grant's form (RFC 6749 §4.1.3): `code` required; `redirect_uri` when
 * the authorization request had one; `code_verifier` for PKCE (RFC 7636 §4.5, checked with
 * `verifyCodeVerifier`).
 *
 * @example
 * ```ts
 * const token = tokenEndpoint(t.procedure, { authenticateClient })
 *   .grant('authorization_code', authorizationCodeGrantForm, ({ form }) => exchange(form.code, form.code_verifier));
 * ```
 */
export const authorizationCodeGrantForm = defineGrantForm('authorization_code', {
  required: { code: { secret: true, description: 'The authorization code' } },
  optional: {
    redirect_uri: { description: 'The redirect_uri of the authorization request, when it had one', example: 'https://client.example/cb' },
    code_verifier: { secret: true, description: 'The PKCE code verifier (RFC 7636): 43 to 128 unreserved characters' },
  },
});
