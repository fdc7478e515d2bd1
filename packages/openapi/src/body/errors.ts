/**
 * The body policy's refusals, each a 4xx with a stable code, so a client's bad body is never
 * answered 500.
 * @module
 */
import { OAuth2Error, getOAuth2Error } from '@trpc-oauth2/core';
import { TRPCError } from '@trpc/server';

/**
 * A body larger than the limit: 413, code `ERR_BODY_TOO_LARGE`.
 *
 * @example
 * ```ts
 * if (size > maxBodySize) throw bodyTooLargeError(maxBodySize);
 * ```
 */
export function bodyTooLargeError(maxBodySize: number): TRPCError {
  return new OAuth2Error({
    code: 'ERR_BODY_TOO_LARGE',
    status: 413,
    message: `Request body larger than ${maxBodySize} bytes`,
  }).toTRPCError();
}

/**
 * A body that cannot be read as its `Content-Type` says: 400, code `ERR_MALFORMED_BODY`.
 *
 * @example
 * ```ts
 * const form = await response.formData().catch(() => { throw malformedBodyError('multipart/form-data'); });
 * ```
 */
export function malformedBodyError(mediaType: string | undefined): TRPCError {
  return new OAuth2Error({
    code: 'ERR_MALFORMED_BODY',
    status: 400,
    message: mediaType === undefined ? 'Failed to read the request body' : `Failed to parse the ${mediaType} request body`,
  }).toTRPCError();
}

/**
 * A multipart field that is a file where only text is accepted: 400, code `ERR_FILE_FIELD`.
 *
 * @example
 * ```ts
 * if (typeof value !== 'string') throw fileFieldError(name);
 * ```
 */
export function fileFieldError(field: string): TRPCError {
  return new OAuth2Error({
    code: 'ERR_FILE_FIELD',
    status: 400,
    // The field name is the client's own text; JSON.stringify keeps control characters visible.
    message: `Form field ${JSON.stringify(field)} is a file: only text fields are accepted`,
  }).toTRPCError();
}

/**
 * A field a token or revocation endpoint reads, sent more than once in its form: 400
 * `invalid_request` (RFC 6749 §3.2 says a parameter MUST NOT be sent more than once, §5.2 answers
 * one that is so), code `ERR_INVALID_REQUEST`, worded as the endpoint words the refusals of its
 * fields. Only the endpoint's own field names are named, never a client's.
 *
 * @example
 * ```ts
 * throw repeatedFieldError('grant_type'); // 400 'grant_type: sent more than once'
 * ```
 */
export function repeatedFieldError(field: string): TRPCError {
  return new OAuth2Error({ code: 'ERR_INVALID_REQUEST', status: 400, error: 'invalid_request', message: `${field}: sent more than once` }).toTRPCError();
}

/**
 * A form field the router's transformer refuses to carry as an input (superjson refuses
 * `__proto__`, `constructor` and `prototype`): 400, code `ERR_MALFORMED_BODY`.
 *
 * @example
 * ```ts
 * throw unreadableFieldError('__proto__'); // 400 'Form field "__proto__" cannot be read as an input'
 * ```
 */
export function unreadableFieldError(field: string): TRPCError {
  return new OAuth2Error({
    code: 'ERR_MALFORMED_BODY',
    status: 400,
    message: `Form field ${JSON.stringify(field)} cannot be read as an input`,
  }).toTRPCError();
}

/**
 * A body sent with a content coding (`Content-Encoding: gzip`): 415, tRPC code
 * `UNSUPPORTED_MEDIA_TYPE`, as RFC 9110 §15.5.16 answers a coding the server does not decode,
 * and as a body of another media type is answered. No handler here decodes one: read as it came,
 * a gzip body would be refused as malformed, and a plain one mislabelled gzip read as if it
 * were plain.
 *
 * @example
 * ```ts
 * throw unsupportedEncodingError('gzip'); // 415 'Unsupported content-encoding "gzip"'
 * ```
 */
export function unsupportedEncodingError(coding: string): TRPCError {
  // The coding is the client's own text; JSON.stringify keeps control characters visible.
  return new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: `Unsupported content-encoding ${JSON.stringify(coding)}` });
}

/**
 * 415 `UNSUPPORTED_MEDIA_TYPE` for a body of a media type no handler here reads, worded as
 * trpc-to-openapi words its own (docs/contract.md#body-limits: "Of another type: 415").
 *
 * @example
 * ```ts
 * unsupportedMediaTypeError('application/jsonx').message; // 'Unsupported content-type "application/jsonx'
 * ```
 */
export function unsupportedMediaTypeError(contentType: string): TRPCError {
  return new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: `Unsupported content-type "${contentType}` });
}

/**
 * 415 `UNSUPPORTED_MEDIA_TYPE` for a urlencoded form declared in a charset other than UTF-8
 * (`charset=iso-8859-1`): a form is read as UTF-8 (RFC 6749 Appendix B), and one decoded as UTF-8
 * from another charset would be read as other text than was sent (docs/contract.md#body-limits).
 *
 * @example
 * ```ts
 * unsupportedCharsetError('iso-8859-1').message; // 'Unsupported charset iso-8859-1: send the form in UTF-8'
 * ```
 */
export function unsupportedCharsetError(charset: string): TRPCError {
  return new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: `Unsupported charset ${charsetText(charset)}: send the form in UTF-8` });
}

/** A character an RFC 6749 §5.2 `error_description` may not hold, a space (which would end the name) or the `%` of an escape. */
const NOT_NAME_CHAR = /[^\x21\x23-\x24\x26-\x5B\x5D-\x7E]/g;

/**
 * The client's charset as the message names it: at a token or revocation endpoint the message is
 * the `error_description`, whose characters RFC 6749 §5.2 limits, so quotes would be dropped from
 * it. A name is written as sent; any other character (a quote, a backslash, a control character
 * or a space inside it, a `%`) as a percent-escape of its code (`a"b` is `a%22b`), so the name
 * reads back whole.
 */
function charsetText(charset: string): string {
  return charset.replace(NOT_NAME_CHAR, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * 415 `UNSUPPORTED_MEDIA_TYPE` for a body sent without a `Content-Type`, worded as tRPC's adapters
 * word their own (docs/contract.md#body-limits: "Of another type: 415").
 *
 * @example
 * ```ts
 * missingContentTypeError().message; // 'Missing content-type header'
 * ```
 */
export function missingContentTypeError(): TRPCError {
  return new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Missing content-type header' });
}

/**
 * The tRPC codes of the policy's refusals of a client's body, with their HTTP status: a malformed
 * body, one too large, one of a type or coding no handler reads.
 */
const BODY_REFUSAL_STATUS: Readonly<Partial<Record<TRPCError['code'], 400 | 413 | 415>>> = {
  BAD_REQUEST: 400,
  PARSE_ERROR: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
};

/**
 * A refused body as a token or revocation endpoint answers it (RFC 6749 §5.2): `invalid_request`,
 * on every face, as the REST faces' `tokenErrorResponse` already answer it, so that the tRPC
 * faces' `data.oauth2` (core's `oauth2ErrorData`) carries it too. The tRPC code, status, message
 * and stable code stay (`ERR_BODY_TOO_LARGE`, `ERR_MALFORMED_BODY`, `ERR_FILE_FIELD`); a refusal
 * without one (a 415, a `PARSE_ERROR`) gets `ERR_INVALID_REQUEST`, its tRPC code kept. An error
 * that already has an RFC `error`, or that is no client's mistake (a 5xx), is returned as it is.
 * See docs/contract.md#body-limits.
 *
 * @example
 * ```ts
 * tokenBodyRefusal(bodyTooLargeError(16_384)); // 413, data.oauth2: { code: 'ERR_BODY_TOO_LARGE', error: 'invalid_request', … }
 * ```
 */
export function tokenBodyRefusal(error: TRPCError): TRPCError {
  const cause = getOAuth2Error(error);
  if (cause?.error !== undefined) return error;
  const status = BODY_REFUSAL_STATUS[error.code];
  if (status === undefined) return error;
  const refusal = new OAuth2Error({
    code: cause?.code ?? 'ERR_INVALID_REQUEST',
    status,
    error: 'invalid_request',
    message: cause?.message ?? error.message,
    ...(cause === undefined ? {} : { headers: cause.headers }),
  });
  return new TRPCError({ code: error.code, message: error.message, cause: refusal });
}

/**
 * A query whose percent-escapes are not UTF-8 (`?q=%FF`): 400, tRPC code `BAD_REQUEST`. Read as
 * `URLSearchParams` reads it, such an escape would reach the input as U+FFFD, so that `%FF` and
 * `%FE` read alike (docs/contract.md#path-parameters).
 *
 * @example
 * ```ts
 * if (!isUtf8Query(search)) requestState(request).refusal = malformedQueryError();
 * ```
 */
export function malformedQueryError(): TRPCError {
  return new TRPCError({ code: 'BAD_REQUEST', message: 'The query is not valid percent-encoded UTF-8' });
}
