/**
 * `rewriteFormRequest`: the body policy for form bodies as a plain function, for adapters this
 * package does not wrap.
 * @module
 */
import { bodyLimit } from './limit.js';
import { MULTIPART, URLENCODED, type FormMediaType } from './media-type.js';
import { bodyKind, decideBody, decidedRequest, type BodyKind } from './policy.js';

/** How `rewriteFormRequest` reads form bodies. */
export interface FormRequestOptions {
  /** The form media types to rewrite; others pass untouched. Default: both. */
  mediaTypes?: readonly FormMediaType[];
  /** The largest form body in bytes (413 beyond it); `null` for none. Default `DEFAULT_MAX_BODY_SIZE`. */
  maxBodySize?: number | null;
  /** What the JSON body carries for the fields, e.g. a tRPC transformer's `serialize`. Default: the fields. */
  serialize?: (fields: Record<string, string>) => unknown;
}

/**
 * The body policy of this package's handlers for a form-encoded request, for any other adapter:
 * the body becomes a JSON object of the form's text fields, the last value of a repeated field
 * winning and empty values left out, and the content type becomes `application/json`. URL,
 * method, signal and every other header (`Authorization` included) are kept. Any other request
 * is returned as it is.
 *
 * A body it cannot take (larger than `maxBodySize`, malformed, with a file part, with a
 * `Content-Encoding`) gives a request marked with that error (413 `ERR_BODY_TOO_LARGE`, 400
 * `ERR_MALFORMED_BODY` or `ERR_FILE_FIELD`, 415); `refuseBodyErrors` makes `createContext` throw
 * it. It never rejects.
 * See `docs/contract.md#the-password-request-form`.
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
  const maxBodySize = bodyLimit(options.maxBodySize);
  const reads: readonly BodyKind[] = options.mediaTypes ?? [URLENCODED, MULTIPART];
  const policy = { reads, maxBodySize, serialize: options.serialize };
  const kind = bodyKind(request.method, request.headers.get('content-type'), request.body !== null);
  // Only a form is this function's business: any other body, encoded or not, is returned as it is.
  if (!policy.reads.includes(kind)) return request;
  const decision = await decideBody(request, policy, kind);
  return decision.action === 'pass' ? request : decidedRequest(request, decision, maxBodySize);
}
