/**
 * The body policy (docs/contract.md#body-limits): which bodies a handler reads, within which
 * limit, and what a request becomes once its body is decided.
 * @module
 */
import { TRPCError } from '@trpc/server';
import { queryFieldsRefusal } from '@trpc-oauth2/core/protocol';
import { malformedBodyError, missingContentTypeError, repeatedFieldError, unreadableFieldError, unsupportedCharsetError, unsupportedEncodingError, unsupportedMediaTypeError } from './errors.js';
import { repeatedMember } from './json-members.js';
import { formFields } from './form.js';
import { limitRequestBody, readLimitedBody } from './limit.js';
import { JSON_MEDIA_TYPE, MULTIPART, OCTET_STREAM, URLENCODED, charsetOf, contentCodingOf, mediaTypeOf, type FormMediaType } from './media-type.js';
import { jsonRequest, refusedRequest } from './requests.js';

/**
 * What a request's body is, classified once from its method and `Content-Type`: `'none'` when
 * there is no body a handler reads (none sent; GET, HEAD and DELETE, whose body trpc-to-openapi
 * ignores), a media type this package can read, or `'other'`.
 */
export type BodyKind = 'none' | FormMediaType | typeof JSON_MEDIA_TYPE | 'other';

const BODILESS_METHODS = ['GET', 'HEAD', 'DELETE'];

/**
 * Classifies a body (see {@link BodyKind}).
 *
 * @example
 * ```ts
 * bodyKind('POST', 'multipart/form-data; boundary=x'); // 'multipart/form-data'
 * ```
 */
export function bodyKind(method: string, contentType: string | null | undefined, hasBody = true): BodyKind {
  if (!hasBody || BODILESS_METHODS.includes(method.toUpperCase())) return 'none';
  const mediaType = mediaTypeOf(contentType);
  return mediaType === URLENCODED || mediaType === MULTIPART || mediaType === JSON_MEDIA_TYPE ? mediaType : 'other';
}

/**
 * The one body policy, as a handler applies it: which kinds of body are read here and handed on
 * as JSON (what its adapter cannot read itself), within which limit, and how form fields become
 * the JSON body. Every other body is handed on as it came, within the same limit.
 */
export interface BodyPolicy {
  readonly reads: readonly BodyKind[];
  /** The largest body in bytes; `null` for none. */
  readonly maxBodySize: number | null;
  /** What the JSON body carries for form fields, e.g. a tRPC transformer's `serialize`. Default: the fields. */
  readonly serialize?: (fields: Record<string, string>) => unknown;
  /**
   * The fields that may be sent once only, in the body only (a token or revocation endpoint's,
   * RFC 6749 §3.2 and §2.3.1): a form that repeats one, a JSON object that names one twice, and a
   * URL whose query names one are refused with 400 `invalid_request`. Unset: the last value wins.
   */
  readonly singleFields?: ReadonlySet<string>;
  /**
   * Refuse with 415 a body whose type is not JSON but starts as JSON's does (`application/jsonx`,
   * `application/json-seq`): trpc-to-openapi reads any such type as JSON, unchecked, and answers a
   * malformed one with a 500 (the REST faces). Default `false`.
   */
  readonly refusesJsonLike?: boolean;
  /**
   * The media types the adapter behind the policy reads itself, for an adapter that answers a
   * body of any other type, or one without a `Content-Type`, with a 415 of its own before it
   * knows the calls ({@link TRPC_OWN_TYPES}: tRPC's adapters do, before `createContext`, so the
   * error names no procedure). Given, a body of a type neither the policy nor the adapter reads
   * is refused here with that same 415, through the adapter's error path (`refuseBodyErrors`): a
   * token or revocation call's then carries RFC 6749's `invalid_request` as on the REST faces
   * (docs/contract.md#body-limits). Unset: such a body is handed on as it came.
   */
  readonly adapterReads?: readonly string[];
}

/**
 * What trpc-to-openapi's handlers need read for them: both forms (they answer them 415) and JSON
 * (checked once here, so both handlers answer a malformed or oversized body alike).
 */
export const REST_READS: readonly BodyKind[] = [URLENCODED, MULTIPART, JSON_MEDIA_TYPE];

/**
 * What tRPC's adapters need read for them: urlencoded forms (they answer them 415); JSON and
 * `multipart/form-data` (a `FormData` input) are tRPC's own.
 */
export const TRPC_READS: readonly BodyKind[] = [URLENCODED];

/**
 * The media types tRPC's adapters read themselves: JSON, `multipart/form-data` (a `FormData`
 * input) and `application/octet-stream` (a stream input). A `POST` of any other type, or without
 * a `Content-Type`, they answer 415 before any call is known.
 */
export const TRPC_OWN_TYPES: readonly string[] = [JSON_MEDIA_TYPE, MULTIPART, OCTET_STREAM];

/**
 * What the policy reads for a token or revocation call on tRPC's adapters: its JSON and multipart
 * forms too, within its limit, read and refused (413, a file part, malformed UTF-8) as the REST
 * faces read them (docs/contract.md#body-limits).
 */
export const TOKEN_TRPC_READS: readonly BodyKind[] = [URLENCODED, MULTIPART, JSON_MEDIA_TYPE];

/**
 * What the policy decided for one request's body, carried forward to the handler:
 * - `pass`: handed on as it came (within the limit);
 * - `json`: handed on as this JSON text (`null`: as no body at all);
 * - `refuse`: answered with this error (413 `ERR_BODY_TOO_LARGE`, 415 for a content coding,
 *   400 `ERR_MALFORMED_BODY`, `ERR_FILE_FIELD` or `PARSE_ERROR`) through the adapter's own error path.
 */
export type BodyDecision =
  | { readonly kind: BodyKind; readonly action: 'pass' }
  | { readonly kind: BodyKind; readonly action: 'json'; readonly json: string | null }
  | { readonly kind: BodyKind; readonly action: 'refuse'; readonly error: TRPCError };

const parseError = (cause: unknown) => new TRPCError({ code: 'PARSE_ERROR', message: 'Failed to parse request body', cause });

async function readAsJson(request: Request, kind: FormMediaType | typeof JSON_MEDIA_TYPE, policy: BodyPolicy): Promise<string | null> {
  const bytes = await readLimitedBody(request, policy.maxBodySize);
  if (kind === JSON_MEDIA_TYPE) {
    let text: string;
    try {
      // JSON is UTF-8 (RFC 8259 §8.1): a byte that is not must not become U+FFFD unseen.
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (cause) {
      throw parseError(cause);
    }
    // An empty JSON body is no body at all, as trpc-to-openapi reads an empty Node body.
    if (text.trim() === '') return null;
    try {
      JSON.parse(text);
    } catch (cause) {
      throw parseError(cause);
    }
    // JSON.parse keeps the last of a member said twice: a field the endpoint reads is refused so,
    // as in a form (RFC 6749 §3.2).
    const repeated = policy.singleFields === undefined ? undefined : repeatedMember(text, policy.singleFields);
    if (repeated !== undefined) throw repeatedFieldError(repeated);
    return text;
  }
  const fields = await formFields(bytes, kind, request.headers.get('content-type') ?? kind, policy.singleFields);
  return JSON.stringify(policy.serialize ? serializeFields(fields, policy.serialize) : fields);
}

/**
 * The fields through the transformer, or a 400 naming the first field it refuses: a field name
 * is the client's choice, and superjson throws on `__proto__`, `constructor` and `prototype`.
 */
function serializeFields(fields: Record<string, string>, serialize: (fields: Record<string, string>) => unknown): unknown {
  try {
    return serialize(fields);
  } catch {
    for (const name of Object.keys(fields)) {
      try {
        serialize({ [name]: fields[name]! });
      } catch {
        throw unreadableFieldError(name);
      }
    }
    throw malformedBodyError(undefined);
  }
}

/**
 * Why a body of `kind` sent with this `Content-Encoding` is refused before a byte of it is read:
 * a content coding other than `identity`, which no handler here decodes (415, see
 * `unsupportedEncodingError`); `undefined` when there is no body or it is as it is. Whatever the
 * kind, a body the policy passes on to the adapter included: the adapters do not decode one either.
 *
 * @example
 * ```ts
 * encodedBodyError('application/json', request.headers.get('content-encoding')); // 415 for 'gzip'
 * ```
 */
export function encodedBodyError(kind: BodyKind, contentEncoding: string | null | undefined): TRPCError | undefined {
  const coding = kind === 'none' ? undefined : contentCodingOf(contentEncoding);
  return coding === undefined ? undefined : unsupportedEncodingError(coding);
}

/**
 * The 415 the adapter behind `policy` would answer a `method` request whose body is of
 * `contentType` with, when the policy says which types the adapter reads (`adapterReads`) and
 * neither it nor the policy reads this one: worded as tRPC's adapters word theirs
 * (`Unsupported content-type "<type>`, `Missing content-type header`). `undefined` for a `GET` or
 * a `HEAD`, which tRPC never refuses by their type, and for a type the policy or the adapter reads.
 *
 * @example
 * ```ts
 * unreadTypeError('POST', 'text/plain', { reads: TOKEN_TRPC_READS, maxBodySize: null, adapterReads: TRPC_OWN_TYPES }); // 415
 * ```
 */
export function unreadTypeError(method: string, contentType: string | null | undefined, policy: BodyPolicy): TRPCError | undefined {
  if (policy.adapterReads === undefined) return undefined;
  const upper = method.toUpperCase();
  if (upper === 'GET' || upper === 'HEAD') return undefined;
  const mediaType = mediaTypeOf(contentType);
  // An empty `Content-Type` names no type: missing, as the REST faces and tRPC say.
  if (mediaType === undefined || mediaType === '') return missingContentTypeError();
  if ((policy.reads as readonly string[]).includes(mediaType)) return undefined;
  // tRPC's adapters match a type by how it starts in earlier 11.x releases (`application/jsonx`
  // read as JSON) and by its exact essence in later ones: a type one of them reads is left to the
  // installed tRPC, and only one no release reads is refused here.
  if (policy.adapterReads.some((type) => mediaType.startsWith(type))) return undefined;
  return unsupportedMediaTypeError(contentType!);
}

/**
 * Applies the body policy to a request: classifies its body once (unless `kind` says already
 * what it is), refuses it when it has a content coding or a type the adapter would refuse
 * (`adapterReads`), and reads it (once, within the limit, never past it) when it is of a kind
 * the policy reads. It never rejects: a client's mistake is a `refuse` decision with a 4xx,
 * anything else (say, a transformer that throws) one with tRPC's `INTERNAL_SERVER_ERROR`. See
 * `docs/contract.md#body-limits`.
 *
 * @example
 * ```ts
 * const decision = await decideBody(request, { reads: REST_READS, maxBodySize: bodyLimit(opts.maxBodySize) });
 * ```
 */
export async function decideBody(
  request: Request,
  policy: BodyPolicy,
  kind: BodyKind = bodyKind(request.method, request.headers.get('content-type'), request.body !== null),
): Promise<BodyDecision> {
  // A token or revocation endpoint's field in the URL's query is refused whatever the body
  // (RFC 6749 §2.3.1: client credentials MUST NOT be in the request URI).
  const inQuery = policy.singleFields === undefined ? undefined : queryFieldsRefusal(request.url, policy.singleFields);
  if (inQuery !== undefined) return { kind, action: 'refuse', error: inQuery };
  const encoded = encodedBodyError(kind, request.headers.get('content-encoding'));
  if (encoded !== undefined) return { kind, action: 'refuse', error: encoded };
  // A type the adapter would refuse before it knows the calls is refused here, with its own 415.
  const unread = unreadTypeError(request.method, request.headers.get('content-type'), policy);
  if (unread !== undefined) return { kind, action: 'refuse', error: unread };
  // A form is read as UTF-8 (RFC 6749 Appendix B; the WHATWG URL standard): one declared in
  // another charset would be misread, so it is refused, not decoded as if it were UTF-8.
  const charset = kind === URLENCODED ? charsetOf(request.headers.get('content-type')) : undefined;
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return { kind, action: 'refuse', error: unsupportedCharsetError(charset) };
  if (kind === 'other' && policy.refusesJsonLike === true) {
    const type = request.headers.get('content-type');
    if (type?.startsWith(JSON_MEDIA_TYPE)) return { kind, action: 'refuse', error: unsupportedMediaTypeError(type) };
  }
  if (kind === 'none' || kind === 'other' || !policy.reads.includes(kind)) return { kind, action: 'pass' };
  try {
    return { kind, action: 'json', json: await readAsJson(request, kind, policy) };
  } catch (cause) {
    const error = cause instanceof TRPCError ? cause : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause });
    return { kind, action: 'refuse', error };
  }
}

/**
 * The Fetch `Request` a handler hands its adapter for a decision, at `url` (the path below the
 * handler's base path): the same request with its body limited (`pass`), a JSON request
 * (`json`), or an empty JSON request whose record holds the error (`refuse`, thrown by
 * `refuseBodyErrors` in `createContext`). Built once, or not at all when nothing changes.
 *
 * @example
 * ```ts
 * const req = decidedRequest(request, await decideBody(request, policy), policy.maxBodySize);
 * ```
 */
export function decidedRequest(request: Request, decision: BodyDecision, maxBodySize: number | null, url = request.url): Request {
  if (decision.action === 'json') return jsonRequest(request, decision.json, url);
  if (decision.action === 'refuse') return refusedRequest(request, decision.error, url);
  return limitRequestBody(request, maxBodySize, url);
}

/**
 * The body policy from request to request (at `url`, when given): {@link decideBody}, then
 * {@link decidedRequest}.
 * What every Fetch-based handler of this package hands its adapter.
 *
 * @example
 * ```ts
 * fetchRequestHandler({ ...opts, req: await applyBodyPolicy(opts.req, { reads: TRPC_READS, maxBodySize: 100_000 }) });
 * ```
 */
export async function applyBodyPolicy(request: Request, policy: BodyPolicy, url = request.url): Promise<Request> {
  return decidedRequest(request, await decideBody(request, policy), policy.maxBodySize, url);
}
