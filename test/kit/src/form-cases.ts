/**
 * The form rules of docs/contract.md#the-password-request-form as cases: wire fields (a field may repeat) → the parsed form, or
 * the wire fields named by the validation error.
 */
export interface FormCase {
  name: string;
  fields: readonly (readonly [string, string])[];
  permissive: Outcome;
  strict: Outcome;
}

/** The parsed form, or the wire fields an error must name. */
export type Outcome = Record<string, unknown> | FormRefusal;
export interface FormRefusal {
  errors: string[];
}
export const isRefusal = (outcome: Outcome): outcome is FormRefusal => Array.isArray(outcome.errors);

const ok = { username: 'alice', password: 's3cret' };
const parsed = (extra: Record<string, unknown> = {}) => ({
  grant_type: null,
  username: 'alice',
  password: 's3cret',
  scope: '',
  scopes: [],
  client_id: null,
  client_secret: null,
  ...extra,
});
const base: (readonly [string, string])[] = [
  ['username', ok.username],
  ['password', ok.password],
];
const withGrant: (readonly [string, string])[] = [['grant_type', 'password'], ...base];

export const FORM_CASES: readonly FormCase[] = [
  { name: 'username and password only', fields: base, permissive: parsed(), strict: { errors: ['grant_type'] } },
  {
    name: 'every field',
    fields: [...withGrant, ['scope', 'me items'], ['client_id', 'app'], ['client_secret', 'shh']],
    permissive: parsed({ grant_type: 'password', scope: 'me items', scopes: ['me', 'items'], client_id: 'app', client_secret: 'shh' }),
    strict: parsed({ grant_type: 'password', scope: 'me items', scopes: ['me', 'items'], client_id: 'app', client_secret: 'shh' }),
  },
  {
    name: 'scopes split on runs of whitespace',
    fields: [...withGrant, ['scope', '  me \t items\n\nadmin:write ']],
    permissive: parsed({ grant_type: 'password', scope: '  me \t items\n\nadmin:write ', scopes: ['me', 'items', 'admin:write'] }),
    strict: parsed({ grant_type: 'password', scope: '  me \t items\n\nadmin:write ', scopes: ['me', 'items', 'admin:write'] }),
  },
  { name: 'empty username is missing', fields: [['username', ''], ['password', 'x']], permissive: { errors: ['username'] }, strict: { errors: ['grant_type', 'username'] } },
  { name: 'missing password', fields: [['username', 'alice']], permissive: { errors: ['password'] }, strict: { errors: ['grant_type', 'password'] } },
  { name: 'missing both', fields: [], permissive: { errors: ['username', 'password'] }, strict: { errors: ['grant_type', 'username', 'password'] } },
  {
    name: 'empty optional fields are absent',
    fields: [...base, ['grant_type', ''], ['client_id', ''], ['client_secret', ''], ['scope', '']],
    permissive: parsed(),
    strict: { errors: ['grant_type'] },
  },
  {
    name: 'the last of repeated fields wins',
    fields: [['username', 'mallory'], ['password', 'nope'], ...withGrant, ['scope', 'admin'], ['scope', 'me']],
    permissive: parsed({ grant_type: 'password', scope: 'me', scopes: ['me'] }),
    strict: parsed({ grant_type: 'password', scope: 'me', scopes: ['me'] }),
  },
  {
    name: 'a trailing empty repeat means absent',
    fields: [...base, ['client_id', 'app'], ['client_id', '']],
    permissive: parsed(),
    strict: { errors: ['grant_type'] },
  },
  ...['Password', 'passwordX', 'password ', 'password\n', 'client_credentials', ' password'].map(
    (grant): FormCase => ({
      name: `grant_type ${JSON.stringify(grant)} is refused`,
      fields: [...base, ['grant_type', grant]],
      permissive: { errors: ['grant_type'] },
      strict: { errors: ['grant_type'] },
    }),
  ),
];

export const toSearchParams = (fields: FormCase['fields']) => new URLSearchParams(fields.map(([k, v]) => [k, v]));

export const toFormData = (fields: FormCase['fields']) => {
  const data = new FormData();
  for (const [k, v] of fields) data.append(k, v);
  return data;
};

/** A plain object has no repeats: the last value of each field, as a JSON client would send it. */
export const toObject = (fields: FormCase['fields']) => Object.fromEntries(fields);
