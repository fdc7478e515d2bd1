import { fileFieldError } from './body-errors.js';

/**
 * A parsed form as a plain object: one value per field, the last one sent (a field sent twice
 * keeps its last value), and a field whose last value is empty left out (an empty field counts
 * as not sent, as FastAPI reads forms). A file part is refused with 400 `ERR_FILE_FIELD`: only
 * text travels as JSON.
 *
 * @example
 * ```ts
 * formToFields(new URLSearchParams('username=a&username=b&client_id='));
 * // { username: 'b' }
 * ```
 */
export function formToFields(form: URLSearchParams | FormData): Record<string, string> {
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of form as Iterable<[string, FormDataEntryValue]>) {
    if (typeof value !== 'string') throw fileFieldError(name);
    if (value === '') delete fields[name];
    else fields[name] = value;
  }
  // A null-prototype object keeps `__proto__` an ordinary field; the copy is a plain object again.
  return { ...fields };
}
