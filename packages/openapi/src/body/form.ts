/**
 * Reads a form body already in memory by the contract's form rules (last value wins, empty is
 * absent), for the handlers that hand it on as JSON.
 * @module
 */
import { fileFieldError, malformedBodyError, repeatedFieldError } from './errors.js';
import { URLENCODED, type FormMediaType } from './media-type.js';

/** Text as the form rules read it: UTF-8, any other byte sequence refused (it throws). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A form body already read into memory, as a plain object: one value per field, the last one
 * sent (a field sent twice keeps its last value), and a field whose last value is empty left out
 * (an empty field counts as not sent, as FastAPI reads forms). `contentType` is the request's
 * whole `Content-Type` (multipart needs its `boundary`). A body that is not valid for its media
 * type (bad UTF-8, a broken multipart) is refused with 400 `ERR_MALFORMED_BODY`, a file part with
 * 400 `ERR_FILE_FIELD`: only text travels as JSON. A field named in `single` (the fields a token
 * or revocation endpoint reads) that is sent more than once, empty or not, is refused with 400
 * `invalid_request` (RFC 6749 §3.2): the JSON made of the form could no longer tell it was.
 * See `docs/contract.md#the-password-request-form`.
 *
 * @example
 * ```ts
 * await formFields(new TextEncoder().encode('username=a&username=b&client_id='), URLENCODED, URLENCODED);
 * // { username: 'b' }
 * ```
 */
export async function formFields(
  bytes: Uint8Array<ArrayBuffer>,
  mediaType: FormMediaType,
  contentType: string,
  single?: ReadonlySet<string>,
): Promise<Record<string, string>> {
  let form: Iterable<[string, FormDataEntryValue]>;
  try {
    form =
      mediaType === URLENCODED
        ? urlencodedPairs(UTF8.decode(bytes))
        : await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw malformedBodyError(mediaType);
  }
  const fields: Record<string, string> = Object.create(null);
  // The names of `single` seen so far (an empty value is a field sent all the same); none kept
  // for a form any field may repeat in.
  const seen = single === undefined ? undefined : new Set<string>();
  for (const [name, value] of form) {
    if (seen !== undefined && single!.has(name)) {
      if (seen.has(name)) throw repeatedFieldError(name);
      seen.add(name);
    }
    if (typeof value !== 'string') throw fileFieldError(name);
    if (value === '') delete fields[name];
    else fields[name] = value;
  }
  // The multipart parser reads a text part's bytes that are not UTF-8 as U+FFFD, as
  // `URLSearchParams` reads `%FF`: `al\xFFice` and `al\xFEice` would be one username. With no
  // file part left, every byte of the body (boundaries, headers, values) is text, so it must all
  // be UTF-8 (docs/contract.md#body-limits).
  if (mediaType !== URLENCODED && !isUtf8(bytes)) throw malformedBodyError(mediaType);
  // A null-prototype object keeps `__proto__` an ordinary field; the copy is a plain object again.
  return { ...fields };
}

/** Whether `bytes` are UTF-8 throughout. */
function isUtf8(bytes: Uint8Array<ArrayBuffer>): boolean {
  try {
    UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A run of percent-escapes (`%C3%A9`): what a urlencoded name or value encodes bytes with. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * The name / value pairs of a urlencoded body, in order, read as `URLSearchParams` reads them
 * (`+` is a space, a `%` not followed by two hex digits is itself), but for bytes that are not
 * UTF-8: `URLSearchParams` turns `%FF` into U+FFFD, so `al%FFice` and `al%FEice` would both read
 * as `al\uFFFDice`; here `decodeURIComponent` refuses them (URIError). docs/contract.md#body-limits.
 */
function urlencodedPairs(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const sequence of text.split('&')) {
    if (sequence === '') continue;
    const equals = sequence.indexOf('=');
    const name = equals === -1 ? sequence : sequence.slice(0, equals);
    const value = equals === -1 ? '' : sequence.slice(equals + 1);
    pairs.push([formDecoded(name), formDecoded(value)]);
  }
  return pairs;
}

/** One urlencoded name or value, decoded; throws a URIError when its escapes are not UTF-8. */
const formDecoded = (text: string): string => text.replaceAll('+', ' ').replace(ESCAPES, (escapes) => decodeURIComponent(escapes));
