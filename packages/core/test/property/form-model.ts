/**
 * docs/contract.md#the-password-request-form: the rules for the password request form, written again from the text: last value
 * wins, empty (or `null`) means not sent, `grant_type` is exactly `password`, `scopes` is `scope`
 * split on runs of whitespace.
 */
import { isWhitespace } from './whitespace.js';

export type Variant = 'permissive' | 'strict';

/** The fields in the order the schema declares them. */
const FIELDS = ['grant_type', 'username', 'password', 'scope', 'client_id', 'client_secret'] as const;
type Field = (typeof FIELDS)[number];

export type ModelOutcome =
  | { ok: true; form: Record<string, unknown> }
  | { ok: false; fields: Field[] };

const splitScopes = (scope: string) => {
  const scopes: string[] = [];
  let current = '';
  for (const char of scope) {
    if (isWhitespace(char)) {
      if (current !== '') scopes.push(current);
      current = '';
    } else current += char;
  }
  if (current !== '') scopes.push(current);
  return scopes;
};

/** What parsing these wire entries (in order; a name may repeat) must give. */
export function modelForm(entries: readonly (readonly [string, unknown])[], variant: Variant): ModelOutcome {
  const last = new Map<string, unknown>();
  for (const [name, value] of entries) last.set(name, value);
  const sent = (field: Field) => {
    const value = last.get(field);
    return value === undefined || value === null || value === '' ? undefined : value;
  };

  const faults: Field[] = [];
  const grantType = sent('grant_type');
  if (grantType === undefined ? variant === 'strict' : grantType !== 'password') faults.push('grant_type');
  for (const field of ['username', 'password'] as const) if (typeof sent(field) !== 'string') faults.push(field);
  for (const field of ['scope', 'client_id', 'client_secret'] as const) {
    const value = sent(field);
    if (value !== undefined && typeof value !== 'string') faults.push(field);
  }
  if (faults.length > 0) return { ok: false, fields: faults };

  const scope = (sent('scope') as string | undefined) ?? '';
  return {
    ok: true,
    form: {
      grant_type: grantType === undefined ? null : 'password',
      username: sent('username'),
      password: sent('password'),
      scope,
      scopes: splitScopes(scope),
      client_id: sent('client_id') ?? null,
      client_secret: sent('client_secret') ?? null,
    },
  };
}
