/**
 * The rules every form of the package reads a body by (the password request form, each grant's
 * form, the revocation form): one value per field, text fields whose errors never quote what
 * was sent, and how a `scope` field splits. See docs/contract.md#the-password-request-form.
 * @module
 */
import { z } from 'zod/v4';

/**
 * Separates scopes in a `scope` form field (RFC 6749 §3.3 says one space; any run of
 * whitespace is accepted, as FastAPI does).
 */
const SCOPE_SEPARATOR = /\s+/;

/** A `scope` field's scopes: split on whitespace, without empty entries. Every grant's form splits it so. */
export const splitScopes = (scope: string): string[] => scope.split(SCOPE_SEPARATOR).filter(Boolean);

interface MultiValued {
  getAll(name: string): unknown[];
}

/**
 * The form rules of every form here (docs/contract.md#the-password-request-form), as a
 * preprocessor of the fields `names`: reduces a body to one value per field before validation,
 * the last value of a field sent twice winning, an empty value (or `null`) counting as not sent.
 * Accepts `URLSearchParams`, `FormData` and plain objects; anything else is passed on for the
 * schema to refuse. Unknown fields are dropped.
 */
export function oneValuePerField(names: readonly string[]): (input: unknown) => unknown {
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

/**
 * A text field whose errors name the wire field, and never quote what was sent (it may be a
 * secret). Every form here builds its fields with it.
 */
export const textField = (field: string) =>
  z.string({
    error: (issue) => (issue.input === undefined ? `${field}: field required` : `${field}: must be text`),
  });

/** A secret field: `format: password` in the OpenAPI document. */
export const secretField = (field: string) => textField(field).meta({ format: 'password' });
