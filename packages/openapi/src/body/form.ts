/**
 * Reads a form body already in memory by the contract's form rules (last value wins, empty is
 * absent), for the handlers that hand it on as JSON.
 * @module
 */
import { fileFieldError, malformedBodyError } from './errors.js';
import { URLENCODED, type FormMediaType } from './media-type.js';

/**
 * A form body already read into memory, as a plain object: one value per field, the last one
 * sent (a field sent twice keeps its last value), and a field whose last value is empty left out
 * (an empty field counts as not sent, as FastAPI reads forms). `contentType` is the request's
 * whole `Content-Type` (multipart needs its `boundary`). A body that is not valid for its media
 * type (bad UTF-8, a broken multipart) is refused with 400 `ERR_MALFORMED_BODY`, a file part with
 * 400 `ERR_FILE_FIELD`: only text travels as JSON. See `docs/contract.md#the-password-request-form`.
 *
 * @example
 * ```ts
 * await formFields(new TextEncoder().encode('username=a&username=b&client_id='), URLENCODED, URLENCODED);
 * // { username: 'b' }
 * ```
 */
export async function formFields(bytes: Uint8Array<ArrayBuffer>, mediaType: FormMediaType, contentType: string): Promise<Record<string, string>> {
  let form: URLSearchParams | FormData;
  try {
    form =
      mediaType === URLENCODED
        ? new URLSearchParams(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
        : await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw malformedBodyError(mediaType);
  }
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of form as Iterable<[string, FormDataEntryValue]>) {
    if (typeof value !== 'string') throw fileFieldError(name);
    if (value === '') delete fields[name];
    else fields[name] = value;
  }
  // A null-prototype object keeps `__proto__` an ordinary field; the copy is a plain object again.
  return { ...fields };
}
