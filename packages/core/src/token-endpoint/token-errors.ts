/**
 * The token endpoint's refusals (RFC 6749 §5.2, RFC 7009 §2.2.1): one factory for every error
 * code, and the §5.2 body any error thrown at the endpoint is answered with.
 * See docs/contract.md#token-responses.
 * @module
 */
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { DPOP_NONCE_HEADER, dpopNonceValue } from '../dpop/dpop-errors.js';
import { OAuth2Error, descriptionText, getOAuth2Error, type OAuth2ErrorCode } from '../errors.js';

/** The challenge a client that authenticated with HTTP Basic is answered with (RFC 6749 §5.2). */
const BASIC_CHALLENGE = 'Basic';

/**
 * The headers every answer of a token or revocation endpoint carries (RFC 6749 §5.1):
 * `Cache-Control: no-store` and `Pragma: no-cache`.
 */
export const TOKEN_RESPONSE_HEADERS: Readonly<Record<'cache-control' | 'pragma', string>> = { 'cache-control': 'no-store', pragma: 'no-cache' };

/**
 * RFC 6749 §5.2 error codes of the token endpoint, RFC 7009 §2.2.1's `unsupported_token_type` of
 * the revocation endpoint, and RFC 9449 §5 and §8's `invalid_dpop_proof` and `use_dpop_nonce`.
 */
export type TokenErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_token_type'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce';

/** What {@link tokenError} may be told besides the code and description. */
export interface TokenErrorOptions {
  /**
   * For `invalid_client`: answer 401 with `WWW-Authenticate: Basic`. Only for a client that
   * authenticated with the `Authorization` header; one that sent its credentials in the form is
   * answered 401 without a challenge (a browser given a Basic challenge to a `fetch` may stall).
   * Thrown by a grant's handler, `around` or `revoke`, the endpoint adds the challenge itself
   * when the request carried Basic credentials.
   */
  challenge?: boolean;
  /** For `use_dpop_nonce`: the nonce the client must use, sent in `DPoP-Nonce` (RFC 9449 §8). */
  dpopNonce?: string;
}

/**
 * A token endpoint refusal, as a `TRPCError` whose cause is an {@link OAuth2Error} with the stable
 * code `ERR_` + the upper-cased RFC code (`ERR_INVALID_GRANT`): 400, or 401 for `invalid_client`
 * (with `WWW-Authenticate: Basic` when `challenge` is set). The description is kept to RFC 6749's
 * `error_description` characters; one with none of them left (but spaces) is
 * `The request was refused (<error>)`. See docs/contract.md#token-responses.
 *
 * @example
 * ```ts
 * throw tokenError('invalid_grant', 'Incorrect username or password');
 * ```
 */
export function tokenError(error: TokenErrorCode, description: string, options: TokenErrorOptions = {}): TRPCError {
  const client = error === 'invalid_client';
  return new OAuth2Error({
    code: `ERR_${error.toUpperCase() as Uppercase<TokenErrorCode>}` satisfies OAuth2ErrorCode,
    status: client ? 401 : 400,
    error,
    message: errorDescription(description, error),
    ...(client && options.challenge ? { headers: { 'WWW-Authenticate': BASIC_CHALLENGE } } : {}),
    ...(options.dpopNonce === undefined ? {} : { headers: { [DPOP_NONCE_HEADER]: dpopNonceValue(options.dpopNonce) } }),
  }).toTRPCError();
}

/**
 * An RFC 6749 §5.2 error response: status, headers (`Cache-Control: no-store`, `Pragma: no-cache`
 * and the error's own, such as `WWW-Authenticate` or `Retry-After`) and the JSON body.
 */
export interface TokenErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: { error: string; error_description: string };
}

/**
 * `text` as RFC 6749 §5.2's `error_description` (`1*( %x20-21 / %x23-5B / %x5D-7E )`): kept to
 * those characters, or, when none is left but spaces (text in another script, `'密码错误'`),
 * `The request was refused (<error>)`: a description is never empty, and the OpenAPI document
 * marks it required.
 */
function errorDescription(text: string, error: string): string {
  const kept = descriptionText(text);
  return kept.trim() === '' ? `The request was refused (${descriptionText(error)})` : kept;
}

/** What a refused input says: each issue's message (they name the field, never the value). */
function issuesOf(error: TRPCError): string | undefined {
  const issues = (error.cause as { issues?: readonly { message?: unknown }[] } | undefined)?.issues;
  if (!Array.isArray(issues)) return undefined;
  const messages = issues.map((issue) => (typeof issue.message === 'string' ? issue.message : '')).filter(Boolean);
  return messages.length > 0 ? messages.join('; ') : undefined;
}

/**
 * Any error thrown while answering a token (or revocation) request, as the RFC 6749 §5.2
 * response the REST faces send: an {@link OAuth2Error} keeps its status, headers and `error`
 * (one without an RFC code, such as a body refused as too large, is `invalid_request`); another
 * client error (a form the input parser refused, an unsupported media type) is
 * `invalid_request` with its status, but a `TRPCError` of code `UNAUTHORIZED` or `FORBIDDEN` is
 * the refusal {@link asTokenRefusal} makes of it; anything else is `server_error`, without its
 * message: with the status of a `TRPCError` of a 5xx code (as tRPC's adapters answer it: a
 * revocation endpoint's 503 tells the client to retry, RFC 7009 §2.2.1), else 500. A
 * description is never empty (see {@link tokenError}).
 *
 * @example
 * ```ts
 * tokenErrorResponse(tokenError('invalid_grant', 'Expired')).body; // { error: 'invalid_grant', error_description: 'Expired' }
 * ```
 */
export function tokenErrorResponse(error: unknown): TokenErrorResponse {
  const oauth2 = getOAuth2Error(asTokenRefusal(error));
  if (oauth2 !== undefined) {
    const code = oauth2.error ?? 'invalid_request';
    return {
      status: oauth2.status,
      headers: { ...TOKEN_RESPONSE_HEADERS, ...oauth2.headers },
      body: { error: code, error_description: errorDescription(oauth2.message, code) },
    };
  }
  // A client error of tRPC's (a refused input, a conflict a handler reports) keeps its HTTP status.
  const status = error instanceof TRPCError ? getHTTPStatusCodeFromError(error) : 500;
  if (error instanceof TRPCError && status < 500) {
    const description = issuesOf(error) ?? error.message;
    return { status, headers: { ...TOKEN_RESPONSE_HEADERS }, body: { error: 'invalid_request', error_description: errorDescription(description, 'invalid_request') } };
  }
  // A fault keeps the 5xx status of its tRPC code (503 SERVICE_UNAVAILABLE), as the tRPC faces answer it.
  return { status, headers: { ...TOKEN_RESPONSE_HEADERS }, body: { error: 'server_error', error_description: SERVER_ERROR_DESCRIPTION } };
}

/**
 * An application's `TRPCError` of code `UNAUTHORIZED` or `FORBIDDEN` at a token or revocation
 * endpoint (thrown by a grant's handler, `around`, `revoke`, `authenticateClient` or a middleware
 * of the endpoint's procedure) as the RFC 6749 §5.2 refusal it means, which has no 403 and answers
 * 401 only with `invalid_client`: `UNAUTHORIZED` is `tokenError('invalid_client', message)`,
 * `FORBIDDEN` is `tokenError('unauthorized_client', message)` (400: the client may not do what it
 * asked). An error that carries an OAuth 2.0 refusal already (`tokenError(…)`, a reader's) and any
 * other error are returned as they are. See docs/contract.md#client-authentication.
 *
 * @example
 * ```ts
 * asTokenRefusal(new TRPCError({ code: 'FORBIDDEN', message: 'Not for this client' })); // tokenError('unauthorized_client', 'Not for this client')
 * ```
 */
export function asTokenRefusal(error: unknown): unknown {
  if (!(error instanceof TRPCError) || getOAuth2Error(error) !== undefined) return error;
  const code = REFUSAL_BY_TRPC_CODE[error.code];
  return code === undefined ? error : tokenError(code, error.message);
}

/** The RFC 6749 §5.2 refusal each tRPC code of a refusal of the client means at a token or revocation endpoint. */
const REFUSAL_BY_TRPC_CODE: Readonly<Partial<Record<TRPCError['code'], TokenErrorCode>>> = {
  UNAUTHORIZED: 'invalid_client',
  FORBIDDEN: 'unauthorized_client',
};

/** What a token or revocation endpoint says of a fault of the server. */
const SERVER_ERROR_DESCRIPTION = 'The request could not be completed';

/**
 * A token or revocation endpoint's resolver whose faults are answered on the tRPC faces as
 * {@link tokenErrorResponse} answers them on REST: without their message (a grant handler's
 * database error may name the user, the query, even a password), their code kept, the fault
 * itself the error's `cause` for `onError` and the logs. A refusal (an `OAuth2Error`, any 4xx)
 * goes as it is.
 *
 * @example
 * ```ts
 * procedure.mutation(concealingFaults(async ({ ctx, input }) => grant(ctx, input)));
 * ```
 */
export function concealingFaults<$Args extends unknown[], $Result>(resolve: (...args: $Args) => Promise<$Result>): (...args: $Args) => Promise<$Result> {
  return async (...args) => {
    try {
      return await resolve(...args);
    } catch (error) {
      throw concealedFault(error);
    }
  };
}

/** Whether `error` is a fault of the server, concealed at a token endpoint: not a refusal (an `OAuth2Error`, any 4xx). */
const isFault = (error: unknown): boolean => getOAuth2Error(error) === undefined && !(error instanceof TRPCError && getHTTPStatusCodeFromError(error) < 500);

function concealedFault(error: unknown): unknown {
  if (!isFault(error)) return error;
  return new TRPCError({ code: error instanceof TRPCError ? error.code : 'INTERNAL_SERVER_ERROR', message: SERVER_ERROR_DESCRIPTION, cause: error });
}

/**
 * A fault at a token or revocation endpoint concealed where it stands, for an HTTP layer's
 * `onError`, which tRPC's adapters call before they build the response from that same error:
 * one thrown by a middleware of the endpoint's procedure, before the resolver
 * {@link concealingFaults} wraps, would reach the tRPC faces' response with its message (and, in
 * development, its stack), where the REST faces answer `server_error` without it
 * (docs/contract.md#token-responses). The error then reads as {@link concealingFaults} makes it:
 * its code kept, the message "The request could not be completed", the fault as it came its
 * `cause`, for `onError` and the logs. A refusal (an `OAuth2Error`, any 4xx) and a fault
 * concealed already are left as they are.
 *
 * @example
 * ```ts
 * onError: ({ error, path }) => { if (path === 'auth.token') concealFaultInPlace(error); },
 * ```
 */
export function concealFaultInPlace(error: unknown): void {
  if (!(error instanceof TRPCError) || !isFault(error) || error.message === SERVER_ERROR_DESCRIPTION) return;
  const fault = new TRPCError({ code: error.code, message: error.message, cause: error.cause });
  fault.stack = error.stack;
  error.message = SERVER_ERROR_DESCRIPTION;
  error.stack = `TRPCError: ${SERVER_ERROR_DESCRIPTION}`;
  Object.defineProperty(error, 'cause', { value: fault, writable: true, configurable: true, enumerable: true });
}

/**
 * What a tRPC error response tells a client about its OAuth 2.0 cause, for your `errorFormatter`:
 * the stable code, the RFC `error` (`null` when there is none) and its description, so that a
 * token endpoint's refusal carries RFC 6749 §5.2's `error` and `error_description` on the tRPC
 * faces too; a description with no §5.2 character left is `The request was refused (<error>)`
 * (by the stable code when there is no `error`). `null` for an error without an OAuth 2.0 cause.
 *
 * It also carries what a client needs to answer the refusal where no response header reaches it
 * (a subscription over Server-Sent Events or WebSockets, a call of a streamed batch, a
 * `TRPCClientError` of any link): `challenge`, the very `WWW-Authenticate` value the HTTP faces
 * send for this refusal (scheme, `error`, `scope`, `resource_metadata`, DPoP `algs`), and
 * `dpopNonce`, the `DPoP-Nonce` a `use_dpop_nonce` refusal asks the next proof to carry; each
 * `null` when the refusal has none. See docs/contract.md#subscriptions.
 *
 * @example
 * ```ts
 * const t = initTRPC.create({
 *   errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }),
 * });
 * ```
 */
export function oauth2ErrorData(error: unknown): OAuth2ErrorData | null {
  const cause = getOAuth2Error(error);
  if (cause === undefined) return null;
  return {
    code: cause.code,
    error: cause.error ?? null,
    error_description: errorDescription(cause.message, cause.error ?? cause.code),
    challenge: headerOf(cause.headers, CHALLENGE_HEADER),
    dpopNonce: headerOf(cause.headers, DPOP_NONCE_HEADER),
  };
}

/** The header that carries a refusal's challenge (RFC 9110 §11.6.1). */
const CHALLENGE_HEADER = 'WWW-Authenticate';

/** The value of the header `name` among an error's headers, whatever the case of its name (RFC 9110 §5.1); `null` when absent. */
function headerOf(headers: Readonly<Record<string, string>>, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return null;
}

/** See {@link oauth2ErrorData}. */
export interface OAuth2ErrorData {
  code: OAuth2ErrorCode;
  error: string | null;
  error_description: string;
  /** The `WWW-Authenticate` value the HTTP faces answer this refusal with (`Bearer error="insufficient_scope", scope="…"`), `null` when it has none. */
  challenge: string | null;
  /** The `DPoP-Nonce` the refusal asks the client's next proof to carry (`use_dpop_nonce`), `null` when it has none. */
  dpopNonce: string | null;
}
