import { malformedBodyError } from './body-errors.js';
import { URLENCODED, type FormMediaType } from './media-type.js';

/**
 * Parses a form body already read into memory. `contentType` is the request's whole
 * `Content-Type` (multipart needs its `boundary`). A body that is not valid for its media type
 * (bad UTF-8, a broken multipart) is refused with 400 `ERR_MALFORMED_BODY`.
 *
 * @example
 * ```ts
 * const form = await parseFormBody(bytes, URLENCODED, 'application/x-www-form-urlencoded');
 * form.get('username');
 * ```
 */
export async function parseFormBody(
  bytes: Uint8Array<ArrayBuffer>,
  mediaType: FormMediaType,
  contentType: string,
): Promise<URLSearchParams | FormData> {
  try {
    if (mediaType === URLENCODED) return new URLSearchParams(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw malformedBodyError(mediaType);
  }
}
