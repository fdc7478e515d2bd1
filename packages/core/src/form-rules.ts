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
 * What a field sent more than once reads as where a form refuses repeats (a token or revocation
 * endpoint: RFC 6749 §3.2 says a parameter MUST NOT be sent more than once): a value no body can
 * carry, which the endpoint refuses as `<field>: sent more than once`.
 */
export const SENT_MORE_THAN_ONCE: unique symbol = Symbol('sent more than once');

/** How {@link oneValuePerField} reads a field sent more than once. */
export interface OneValueOptions {
  /**
   * `'last'` (the default): its last value, as FastAPI reads a form. `'refuse'`: as
   * {@link SENT_MORE_THAN_ONCE}, for the schema to refuse, whatever its values (empty ones too).
   */
  readonly repeats?: 'last' | 'refuse';
}

/**
 * The form rules of every form here (docs/contract.md#the-password-request-form), as a
 * preprocessor of the fields `names`: reduces a body to one value per field before validation,
 * the last value of a field sent twice winning (or, with `repeats: 'refuse'`, marked
 * {@link SENT_MORE_THAN_ONCE}), an empty value (or `null`) counting as not sent. Accepts
 * `URLSearchParams`, `FormData` and plain objects (whose fields a body sent once each); anything
 * else is passed on for the schema to refuse. Unknown fields are dropped.
 */
export function oneValuePerField(names: readonly string[], options: OneValueOptions = {}): (input: unknown) => unknown {
  const refuse = options.repeats === 'refuse';
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
    const fields: Record<string, unknown> = {};
    const multi = typeof (input as Partial<MultiValued>).getAll === 'function';
    for (const name of names) {
      let value: unknown;
      if (multi) {
        const values = (input as MultiValued).getAll(name);
        value = refuse && values.length > 1 ? SENT_MORE_THAN_ONCE : values.at(-1);
      } else value = (input as Record<string, unknown>)[name];
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
