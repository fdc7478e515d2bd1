import { TRPCError } from '@trpc/server';
import { formToFields } from './form-to-fields.js';
import { jsonRequest, refusedRequest } from './json-request.js';
import { MULTIPART, URLENCODED, mediaTypeOf, type FormMediaType } from './media-type.js';
import { parseFormBody } from './parse-form-body.js';
import { readLimitedBody } from './read-limited-body.js';

/**
 * The largest form body read by default, in bytes: trpc-to-openapi's own default body limit.
 * `oauth2FetchRequestHandler` applies it to bodies of every type.
 *
 * @example
 * ```ts
 * rewriteFormRequest(request, { maxBodySize: DEFAULT_MAX_FORM_BODY_SIZE / 10 });
 * ```
 */
export const DEFAULT_MAX_FORM_BODY_SIZE = 100_000;

/**
 * How `rewriteFormRequest` reads form bodies.
 *
 * @example
 * ```ts
 * const options: FormRequestOptions = { mediaTypes: [URLENCODED], maxBodySize: 10_000 };
 * ```
 */
export interface FormRequestOptions {
  /** The form media types to rewrite; others pass untouched. Default: both. */
  mediaTypes?: readonly FormMediaType[];
  /** The largest form body in bytes (413 beyond it); `null` for none. Default {@link DEFAULT_MAX_FORM_BODY_SIZE}. */
  maxBodySize?: number | null;
  /** What the JSON body carries for the fields, e.g. a tRPC transformer's `serialize`. Default: the fields. */
  serialize?: (fields: Record<string, string>) => unknown;
}

const BODILESS_METHODS = ['GET', 'HEAD'];

/**
 * The form body limit that applies for a `maxBodySize` option: {@link DEFAULT_MAX_FORM_BODY_SIZE}
 * when it is not given, none for `null`.
 *
 * @example
 * ```ts
 * formBodyLimit(undefined); // 100_000
 * ```
 */
export const formBodyLimit = (maxBodySize: number | null | undefined): number | null =>
  maxBodySize === undefined ? DEFAULT_MAX_FORM_BODY_SIZE : maxBodySize;

/**
 * Whether `rewriteFormRequest` would read a body of this `Content-Type`, with these options.
 *
 * @example
 * ```ts
 * isFormContentType('multipart/form-data; boundary=x', { mediaTypes: [URLENCODED] }); // false
 * ```
 */
export function isFormContentType(contentType: string | null | undefined, options: FormRequestOptions = {}): boolean {
  const mediaType = mediaTypeOf(contentType);
  return (options.mediaTypes ?? [URLENCODED, MULTIPART]).some((accepted) => accepted === mediaType);
}

/**
 * Turns a form-encoded request into the JSON request trpc-to-openapi and tRPC's JSON handling
 * read: the body becomes a JSON object of the form's text fields, the last value of a repeated
 * field winning and empty values left out, and the content type becomes `application/json`.
 * URL, method, signal and every other header (`Authorization` included) are kept. Any other
 * request is returned as it is.
 *
 * A body it cannot take (larger than `maxBodySize`, malformed, with a file part) gives a request
 * marked with that error (413 `ERR_BODY_TOO_LARGE`, 400 `ERR_MALFORMED_BODY` or
 * `ERR_FILE_FIELD`); `refuseBodyErrors` makes `createContext` throw it. It never rejects for a
 * client's mistake.
 *
 * @example
 * ```ts
 * const json = await rewriteFormRequest(new Request('http://x/api/token', {
 *   method: 'POST',
 *   body: new URLSearchParams('username=alice&password=s3cret&scope=me&scope='),
 * }));
 * await json.json(); // { username: 'alice', password: 's3cret' }
 * ```
 */
export async function rewriteFormRequest(request: Request, options: FormRequestOptions = {}): Promise<Request> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!isFormContentType(contentType, options) || BODILESS_METHODS.includes(request.method)) return request;
  const mediaType = mediaTypeOf(contentType) as FormMediaType;
  try {
    const bytes = await readLimitedBody(request, formBodyLimit(options.maxBodySize));
    const fields = formToFields(await parseFormBody(bytes, mediaType, contentType));
    return jsonRequest(request, JSON.stringify(options.serialize ? options.serialize(fields) : fields));
  } catch (cause) {
    if (cause instanceof TRPCError) return refusedRequest(request, cause);
    throw cause;
  }
}
