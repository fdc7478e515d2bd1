/**
 * The media types of the body policy: the forms this package reads, and JSON, which they become.
 * @module
 */

/** `application/x-www-form-urlencoded`: what HTML forms and Swagger UI's password flow send. */
export const URLENCODED = 'application/x-www-form-urlencoded';

/** `multipart/form-data`: what `fetch` sends for a `FormData` body. */
export const MULTIPART = 'multipart/form-data';

/** The media type a form body is rewritten to, the only one trpc-to-openapi reads. */
export const JSON_MEDIA_TYPE = 'application/json';

/** `application/octet-stream`: what tRPC's adapters read as a stream input. */
export const OCTET_STREAM = 'application/octet-stream';

/** A media type this package can turn into a JSON body. */
export type FormMediaType = typeof URLENCODED | typeof MULTIPART;

/**
 * The media type of a `Content-Type` value, lower case and without parameters
 * (`multipart/form-data; boundary=x` → `multipart/form-data`), or `undefined` when absent.
 *
 * @example
 * ```ts
 * mediaTypeOf('Application/JSON; charset=utf-8'); // 'application/json'
 * ```
 */
export function mediaTypeOf(contentType: string | null | undefined): string | undefined {
  if (contentType == null) return undefined;
  const end = contentType.indexOf(';');
  return (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
}

/**
 * The first content coding of a `Content-Encoding` value other than `identity` (RFC 9110 §8.4: a
 * list, case-insensitive), or `undefined` when the body is as it is.
 *
 * @example
 * ```ts
 * contentCodingOf('identity, GZIP'); // 'gzip'
 * ```
 */
export function contentCodingOf(contentEncoding: string | null | undefined): string | undefined {
  if (contentEncoding == null) return undefined;
  for (const coding of contentEncoding.split(',')) {
    const name = coding.trim().toLowerCase();
    if (name !== '' && name !== 'identity') return name;
  }
  return undefined;
}

/**
 * The `charset` parameter of a `Content-Type` value, lower case and unquoted
 * (`application/x-www-form-urlencoded; Charset="ISO-8859-1"` → `iso-8859-1`), or `undefined` when
 * it has none.
 *
 * @example
 * ```ts
 * charsetOf('application/x-www-form-urlencoded; charset=UTF-8'); // 'utf-8'
 * ```
 */
export function charsetOf(contentType: string | null | undefined): string | undefined {
  if (contentType == null) return undefined;
  for (const parameter of contentType.split(';').slice(1)) {
    const equals = parameter.indexOf('=');
    if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    const value = parameter.slice(equals + 1).trim();
    return (value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value).toLowerCase();
  }
  return undefined;
}
