/**
 * The input of a token or revocation endpoint: fields documented as text that let any value
 * through, so that the endpoint itself refuses a value that is not text, as RFC 6749 §5.2's
 * `invalid_request`, on every face. See docs/contract.md#token-responses.
 * @module
 */
import { z } from 'zod/v4';
import { SENT_MORE_THAN_ONCE, oneValuePerField } from '../form-rules.js';
import { tokenError } from './token-errors.js';

/**
 * A field of an endpoint's input: documented as text (`type: string`, with `meta`), but any value
 * passes, for the endpoint to check. A `z.string()` here would have tRPC's input check refuse
 * `{"password": 5}` before the endpoint runs: a bare `BAD_REQUEST` listing zod's issues, without
 * `ERR_INVALID_REQUEST` on the tRPC faces.
 *
 * @example
 * ```ts
 * z.object({ token: endpointField({ format: 'password' }) });
 * ```
 */
export const endpointField = (meta: Record<string, unknown> = {}): z.ZodType =>
  z.unknown().meta({ type: 'string', ...meta }).optional();

/** Plain objects, `URLSearchParams` and `FormData`: the bodies that carry fields. */
const hasFields = (input: unknown): input is object => typeof input === 'object' && input !== null && !Array.isArray(input);

/**
 * An endpoint's input: one value per field of `shape` (the form rules), any value let through
 * (see {@link endpointField}). A field of `shape` a `FormData` or `URLSearchParams` holds more
 * than once reads as `SENT_MORE_THAN_ONCE`, which {@link refuseRepeatedFields} refuses (RFC 6749
 * §3.2); the HTTP handlers of `@trpc-oauth2/openapi` refuse a repeated form field themselves,
 * before the body becomes JSON. A body that is not an object (a string, a number, `null`, an
 * array) has no fields, as trpc-to-openapi reads it on the REST faces, so every face answers it
 * alike: the first required field is missing. No input at all is still refused by the schema:
 * trpc-to-openapi documents the request body as required only because `undefined` fails it.
 *
 * @example
 * ```ts
 * endpointForm({ token: endpointField(), token_type_hint: endpointField() });
 * ```
 */
export function endpointForm(shape: Record<string, z.ZodType>): z.ZodType {
  const fields = oneValuePerField(Object.keys(shape), { repeats: 'refuse' });
  return z.preprocess((input) => (input === undefined ? input : fields(hasFields(input) ? input : {})), z.object(shape));
}

/**
 * `value` parsed by `schema`, a form of the endpoint's (a grant's form, the revocation form), or
 * `invalid_request` naming each field at fault, never quoting a value.
 *
 * @example
 * ```ts
 * const form = await parseForm(grant.form.schema, { ...input, grant_type: grantType });
 * ```
 */
export async function parseForm<$Form>(schema: z.ZodType<$Form>, value: unknown): Promise<$Form> {
  const parsed = await schema.safeParseAsync(value);
  if (!parsed.success) throw tokenError('invalid_request', parsed.error.issues.map((issue) => issue.message).join('; '));
  return parsed.data;
}

/**
 * `invalid_request` naming each field of an endpoint's parsed input that was sent more than once
 * (RFC 6749 §3.2: a parameter MUST NOT be; §5.2 answers one that is so), whichever grant reads
 * it; nothing when none was. The endpoint calls it before it reads any field, so that no value
 * of a repeated field is taken for the request's.
 *
 * @example
 * ```ts
 * refuseRepeatedFields(input); // throws 'grant_type: sent more than once' for grant_type=a&grant_type=b
 * ```
 */
export function refuseRepeatedFields(input: Record<string, unknown>): void {
  const repeated = Object.keys(input).filter((name) => input[name] === SENT_MORE_THAN_ONCE);
  if (repeated.length > 0) throw tokenError('invalid_request', repeated.map((name) => `${name}: sent more than once`).join('; '));
}
