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
 * Reduces a form body to one value per known field, before validation: the last value of a
 * field sent twice wins, and an empty value (or `null`) counts as not sent. Accepts
 * `URLSearchParams`, `FormData` and plain objects; anything else is passed on for the schema
 * to refuse. Unknown fields are dropped.
 *
 * @example
 * ```ts
 * formFields(new URLSearchParams('username=a&username=b&client_id='));
 * // { username: 'b' }
 * ```
 */
export function formFields(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const fields: Partial<Record<FormField, unknown>> = {};
  if (typeof (input as Partial<MultiValued>).getAll === 'function') {
    for (const name of FORM_FIELDS) {
      const values = (input as MultiValued).getAll(name);
      const last = values[values.length - 1];
      if (last !== undefined && last !== '') fields[name] = last;
    }
  } else {
    for (const name of FORM_FIELDS) {
      const value = (input as Record<string, unknown>)[name];
      if (value !== undefined && value !== null && value !== '') fields[name] = value;
    }
  }
  return fields;
}
