/**
 * Every failure this package answers with: {@link OAuth2Error}, its closed set of stable codes,
 * and the factories that build the errors the readers, the scopes check and the client
 * credentials reader throw.
 * @module
 */
import { TRPCError } from '@trpc/server';

/** The message every not-authenticated error carries by default. */
const NOT_AUTHENTICATED = 'Not authenticated';

/** What a step-up refusal says by default, and when its description has nothing left to say. */
const STEP_UP_REQUIRED = 'A different authentication level is required';

/** RFC 6749 §5.2 and RFC 6750 §3: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
const NOT_DESCRIPTION_CHAR = /[^\x20\x21\x23-\x5B\x5D-\x7E]/g;

/** `text` kept to the characters an `error_description` may hold; anything else is dropped. */
export const descriptionText = (text: string): string => text.replace(NOT_DESCRIPTION_CHAR, '');

/**
 * `text` as a refusal's `error_description`, kept to the characters it may hold: `undefined` when
 * there is no text, or none is left but spaces (text in another script, `'认证级别不足'`). A
 * refusal then leaves `error_description` out of its challenge (RFC 6750 §3 makes it optional) and
 * falls back to its fixed message: a message is never empty.
 */
export function refusalDescription(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const kept = descriptionText(text);
  return kept.trim() === '' ? undefined : kept;
}

/**
 * The brand of an {@link OAuth2Error}: a global symbol, so that `instanceof OAuth2Error` holds for
 * an error built by another copy of this package (e.g. one bundled with a verifier).
 */
const BRAND = Symbol.for('trpc-oauth2.oauth2-error');

/** HTTP statuses an {@link OAuth2Error} may carry, each with a tRPC code of the same meaning. */
const TRPC_CODE_BY_STATUS = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
} as const;

/**
 * An HTTP status an {@link OAuth2Error} can answer with; each has a tRPC code of the same meaning.
 */
export type OAuth2ErrorStatus = keyof typeof TRPC_CODE_BY_STATUS;

/**
 * Stable codes, for tests and callers to branch on (the message may change, these do not). The
 * set is closed: every code an {@link OAuth2Error} can carry is listed here.
 *
 * - readers and scopes: `ERR_NOT_AUTHENTICATED`, `ERR_INVALID_TOKEN`, `ERR_INSUFFICIENT_SCOPE`,
 *   and `ERR_INSUFFICIENT_USER_AUTHENTICATION` (RFC 9470 step-up);
 * - the token endpoint (RFC 6749 §5.2, `ERR_` + the upper-cased `error`): `ERR_INVALID_REQUEST`,
 *   `ERR_INVALID_CLIENT`, `ERR_INVALID_GRANT`, `ERR_UNAUTHORIZED_CLIENT`,
 *   `ERR_UNSUPPORTED_GRANT_TYPE`, `ERR_INVALID_SCOPE`, and `ERR_SLOW_DOWN` (RFC 8628 §3.5) for a
 *   throttled client; the revocation endpoint's `ERR_UNSUPPORTED_TOKEN_TYPE` (RFC 7009 §2.2.1);
 * - request bodies: `ERR_BODY_TOO_LARGE` (413), `ERR_MALFORMED_BODY`, `ERR_FILE_FIELD` (400);
 * - DPoP (RFC 9449 §7.1, §8): `ERR_INVALID_DPOP_PROOF`, `ERR_USE_DPOP_NONCE` (401 at a resource
 *   server, 400 at a token endpoint).
 *
 * @example
 * ```ts
 * if (getOAuth2Error(error)?.code === 'ERR_INSUFFICIENT_SCOPE') showUpgradePrompt();
 * ``` */
export type OAuth2ErrorCode =
  | 'ERR_NOT_AUTHENTICATED'
  | 'ERR_INVALID_TOKEN'
  | 'ERR_INSUFFICIENT_SCOPE'
  | 'ERR_INSUFFICIENT_USER_AUTHENTICATION'
  | 'ERR_INVALID_REQUEST'
  | 'ERR_INVALID_CLIENT'
  | 'ERR_INVALID_GRANT'
  | 'ERR_UNAUTHORIZED_CLIENT'
  | 'ERR_UNSUPPORTED_GRANT_TYPE'
  | 'ERR_INVALID_SCOPE'
  | 'ERR_UNSUPPORTED_TOKEN_TYPE'
  | 'ERR_SLOW_DOWN'
  | 'ERR_BODY_TOO_LARGE'
  | 'ERR_MALFORMED_BODY'
  | 'ERR_FILE_FIELD'
  | 'ERR_INVALID_DPOP_PROOF'
  | 'ERR_USE_DPOP_NONCE';

/** What an {@link OAuth2Error} is made of. */
export interface OAuth2ErrorInit {
  code: OAuth2ErrorCode;
  status: OAuth2ErrorStatus;
  message: string;
  /** Response headers the error must travel with, such as `WWW-Authenticate`. */
  headers?: Readonly<Record<string, string>>;
  /** The RFC 6749 / RFC 6750 `error` value, when there is one (`invalid_token`, …). */
  error?: string;
}

/**
 * An authentication or authorization failure with the HTTP status and headers it must be
 * answered with. It travels as the `cause` of a {@link TRPCError}, so that `createCaller`
 * users can read it and HTTP adapters can write its headers (see `oauth2ResponseMeta`).
 *
 * @example
 * ```ts
 * try {
 *   await caller.me();
 * } catch (err) {
 *   const cause = (err as TRPCError).cause;
 *   if (cause instanceof OAuth2Error) console.log(cause.status, cause.headers);
 * }
 * ```
 */
export class OAuth2Error extends Error {
  override readonly name = 'OAuth2Error';
  readonly code: OAuth2ErrorCode;
  readonly status: OAuth2ErrorStatus;
  readonly headers: Readonly<Record<string, string>>;
  readonly error: string | undefined;

  /** Any copy of this package's `OAuth2Error` counts (see {@link BRAND}). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  constructor(init: OAuth2ErrorInit) {
    super(init.message);
    Object.defineProperty(this, BRAND, { value: true });
    this.code = init.code;
    this.status = init.status;
    this.headers = checkedHeaders(init.headers ?? {});
    this.error = init.error;
  }

  /**
   * The same failure as a {@link TRPCError} whose code maps to this status.
   *
   * @example
   * ```ts
   * throw new OAuth2Error({ code: 'ERR_INVALID_TOKEN', status: 401, message: 'Expired' }).toTRPCError();
   * ```
   */
  toTRPCError(): TRPCError {
    return new TRPCError({ code: TRPC_CODE_BY_STATUS[this.status], message: this.message, cause: this });
  }
}

/** RFC 9110 §5.1 field-name: a token. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 §5.5 field-value, without obs-text: visible ASCII, spaces and tabs, no CR/LF/NUL. */
const FIELD_VALUE = /^[\t\x20-\x7E]*$/;

/**
 * `headers` as an error may carry them: a name that is not a token or a value with CR, LF, NUL or
 * a character beyond ASCII would rewrite the response (or make an HTTP stack throw while it is
 * written, after the status was decided), so it throws a `TypeError` where the error is built.
 */
function checkedHeaders(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  for (const [name, value] of Object.entries(headers)) {
    if (!FIELD_NAME.test(name) || typeof value !== 'string' || !FIELD_VALUE.test(value)) {
      throw new TypeError(`OAuth2Error: header ${JSON.stringify(name)} is not a valid HTTP field (RFC 9110 §5.1, §5.5)`);
    }
  }
  return headers;
}

/**
 * Finds the {@link OAuth2Error} behind an error thrown by a procedure, if there is one: the
 * error itself, or what tRPC wrapped (a `TRPCError`'s cause), never what an error of the
 * application's wraps (a fault with a refusal as its cause is a fault).
 *
 * @example
 * ```ts
 * const headers = getOAuth2Error(error)?.headers; // { 'WWW-Authenticate': 'Bearer' }
 * ```
 */
export function getOAuth2Error(error: unknown): OAuth2Error | undefined {
  let current = error;
  // A TRPCError wraps its cause; a cause may itself be wrapped once more by an adapter. Only
  // tRPC's wrapping is looked through: an error of the application's with a refusal as its cause
  // (a fault wrapping one) is a fault, whose message must not reach the client as a refusal's.
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    if (current instanceof OAuth2Error) return current;
    if (!(current instanceof TRPCError)) return undefined;
    current = current.cause;
  }
  return undefined;
}

/**
 * What a resource server's challenges may point at (RFC 9728 §5.1).
 *
 * @example
 * ```ts
 * const options: ChallengeOptions = { resourceMetadata: 'https://api.example/.well-known/oauth-protected-resource/mcp' };
 * ```
 */
export interface ChallengeOptions {
  /**
   * The URL of the resource's protected resource metadata: added to the challenge as
   * `resource_metadata="…"`, so that a client that knows nothing in advance finds the
   * authorization server. Must be an absolute URL; characters a quoted string cannot hold are refused.
   */
  resourceMetadata?: string;
}

// RFC 9110 §5.6.4 quoted-string without escapes: what a URL may put between the quotes.
const QUOTABLE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * Whether `text` goes between a challenge's quotes as it is: printable ASCII but space, `"` and
 * `\` (an acr value, a scope token; RFC 9449 §8.1's NQCHAR for a DPoP nonce is the same set).
 */
export const isQuotable = (text: unknown): text is string => typeof text === 'string' && QUOTABLE.test(text);

/**
 * Throws a `TypeError` unless the step-up parameters are what a challenge carries (RFC 9470 §3):
 * `acrValues` non-empty quotable strings, `maxAge` a whole number of seconds.
 */
export function checkStepUpParams(acrValues: readonly string[] | undefined, maxAge: number | undefined): void {
  if (acrValues !== undefined && (acrValues.length === 0 || !acrValues.every(isQuotable))) {
    throw new TypeError('acrValues must be non-empty strings without spaces, quotes or backslashes');
  }
  if (maxAge !== undefined && !(Number.isSafeInteger(maxAge) && maxAge >= 0)) throw new TypeError('maxAge must be a whole number of seconds, 0 or more');
}

/**
 * A `Bearer` challenge (RFC 6750 §3, RFC 9728 §5.1, RFC 9470 §3): its parameters in the order
 * given, then `resource_metadata`, each value quoted (values are checked or cleaned by the callers).
 * Shared with the DPoP refusals that challenge in both schemes.
 */
export function bearerChallenge(params: readonly (readonly [string, string | undefined])[], options: ChallengeOptions | undefined): string {
  const all = [...params, ['resource_metadata', resourceMetadataValue(options)] as const];
  const written = all.filter((param): param is [string, string] => param[1] !== undefined).map(([name, value]) => `${name}="${value}"`);
  return written.length === 0 ? 'Bearer' : `Bearer ${written.join(', ')}`;
}

/**
 * The `resource_metadata` value of a challenge (RFC 9728 §5.1), `undefined` without one; a URL a
 * quoted string cannot carry throws. Shared by every scheme's challenges (the DPoP ones too).
 */
export function resourceMetadataValue(options: ChallengeOptions | undefined): string | undefined {
  const metadata = options?.resourceMetadata;
  if (metadata === undefined) return undefined;
  if (!isQuotable(metadata) || !URL.canParse(metadata)) {
    throw new TypeError('resourceMetadata must be an absolute URL without spaces, quotes or backslashes');
  }
  return metadata;
}

/**
 * The `scope` parameter of a challenge: the scopes separated by spaces (`undefined` for none).
 * Each must be a scope-token (RFC 6749 §3.3), which a quoted string holds as it is: anything else
 * (a quote, CR/LF, a space inside a name) would rewrite the header, so it throws. Shared by every
 * scheme's challenges.
 */
export function scopeParam(scopes: readonly string[]): string | undefined {
  if (scopes.length === 0) return undefined;
  for (const scope of scopes) if (!isQuotable(scope)) throw new TypeError('scope must be scope tokens');
  return scopes.join(' ');
}

/**
 * The bearer readers' default not-authenticated error: 401 with `WWW-Authenticate: Bearer`
 * (`Bearer resource_metadata="…"` given `resourceMetadata`, `Bearer scope="…"` given `scope`).
 *
 * @example
 * ```ts
 * oauth2PasswordBearer({ tokenUrl: 'token', makeNotAuthenticatedError: bearerNotAuthenticatedError });
 * ```
 */
export function bearerNotAuthenticatedError(options?: ChallengeOptions & { scope?: readonly string[] }): TRPCError {
  // RFC 6750 §3: a challenge may name the scopes a request needs, so a client asks for them at once.
  const scope = options?.scope === undefined ? undefined : scopeParam(options.scope);
  return new OAuth2Error({
    code: 'ERR_NOT_AUTHENTICATED',
    status: 401,
    message: NOT_AUTHENTICATED,
    headers: { 'WWW-Authenticate': bearerChallenge([['scope', scope]], options) },
  }).toTRPCError();
}

/** The base reader's default not-authenticated error: 403 with no challenge, as FastAPI's `OAuth2`. */
export function forbiddenNotAuthenticatedError(): TRPCError {
  return new OAuth2Error({ code: 'ERR_NOT_AUTHENTICATED', status: 403, message: NOT_AUTHENTICATED }).toTRPCError();
}

/**
 * RFC 6750 §3.1 `invalid_token`: 401 with `WWW-Authenticate: Bearer error="invalid_token"`,
 * for a token that is malformed, expired, revoked or otherwise refused by the resolver; with
 * `resourceMetadata`, the challenge ends with `resource_metadata="…"`.
 *
 * @example
 * ```ts
 * const payload = await jwtVerify(ctx.token, key).catch(() => {
 *   throw invalidTokenError('The access token expired');
 * });
 * ```
 */
export function invalidTokenError(description?: string, options?: ChallengeOptions): TRPCError {
  const safe = refusalDescription(description);
  const challenge = bearerChallenge([['error', 'invalid_token'], ['error_description', safe]], options);
  return new OAuth2Error({
    code: 'ERR_INVALID_TOKEN',
    status: 401,
    error: 'invalid_token',
    message: safe ?? 'Could not validate credentials',
    headers: { 'WWW-Authenticate': challenge },
  }).toTRPCError();
}

/** Marks a refusal {@link foreignTokenError} made; `Symbol.for`, so that every copy of this package reads it (as {@link BRAND}). */
const FOREIGN = Symbol.for('trpc-oauth2.foreign-token');

/**
 * {@link invalidTokenError} for a token another issuer issued (its `iss` is not the verifier's):
 * the same 401 `invalid_token`, marked so that `anyOf`, when every reader refuses a token, answers
 * with the refusal of a reader that refused it for another cause (its audience, its expiry: the
 * reader the token was meant for) rather than with this one.
 *
 * @example
 * ```ts
 * if (claims.iss !== ISSUER) throw foreignTokenError('The access token was issued by another issuer');
 * ```
 */
export function foreignTokenError(description?: string, options?: ChallengeOptions): TRPCError {
  const error = invalidTokenError(description, options);
  Object.defineProperty(error.cause!, FOREIGN, { value: true });
  return error;
}

/** Whether `error` is (or wraps, as tRPC does) a refusal made by {@link foreignTokenError}. */
export function isForeignTokenError(error: unknown): boolean {
  return (getOAuth2Error(error) as { [FOREIGN]?: unknown } | undefined)?.[FOREIGN] === true;
}

/**
 * RFC 6750 §3.1 `insufficient_scope`: 403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, naming every scope the
 * procedure requires.
 *
 * @example
 * ```ts
 * if (!granted.has('items')) throw insufficientScopeError(['me', 'items']);
 * ```
 */
export function insufficientScopeError(requiredScopes: readonly string[], options?: ChallengeOptions): TRPCError {
  // The readers' scopes were checked when the procedure was defined; an application's own call is checked here.
  const scope = scopeParam(requiredScopes);
  return new OAuth2Error({
    code: 'ERR_INSUFFICIENT_SCOPE',
    status: 403,
    error: 'insufficient_scope',
    message: 'Not enough permissions',
    headers: { 'WWW-Authenticate': bearerChallenge([['error', 'insufficient_scope'], ['scope', scope]], options) },
  }).toTRPCError();
}

/**
 * What a procedure requires of the user's authentication (RFC 9470): the authentication context
 * classes it accepts (`acr`, any of), and how long ago the user may have authenticated at most.
 *
 * @example
 * ```ts
 * const stepUp: AuthenticationRequirement = { acrValues: ['urn:example:mfa'], maxAge: 300 };
 * ```
 */
export interface AuthenticationRequirement {
  /** The `acr` values accepted, in order of preference. */
  acrValues?: readonly string[];
  /** Seconds since `auth_time` beyond which the user must authenticate again. */
  maxAge?: number;
}

/**
 * RFC 9470 §3 `insufficient_user_authentication`: 401 with
 * `WWW-Authenticate: Bearer error="insufficient_user_authentication", error_description="…", acr_values="…", max_age="…"`
 * (and `resource_metadata="…"` given it), for a token whose authentication event does not meet
 * what the procedure requires: the client asks the authorization server again with these
 * `acr_values` / `max_age`. Stable code `ERR_INSUFFICIENT_USER_AUTHENTICATION`.
 *
 * @example
 * ```ts
 * if (principal.acr !== 'urn:example:mfa') throw insufficientUserAuthenticationError({ acrValues: ['urn:example:mfa'] });
 * ```
 */
export function insufficientUserAuthenticationError(requirement: AuthenticationRequirement, options?: ChallengeOptions & { description?: string }): TRPCError {
  const { acrValues, maxAge } = requirement;
  checkStepUpParams(acrValues, maxAge);
  if (acrValues === undefined && maxAge === undefined) throw new TypeError('a step-up names acrValues, maxAge or both');
  // A description with nothing left to send is left out of the challenge; the message falls back.
  const description = refusalDescription(options?.description ?? STEP_UP_REQUIRED);
  return new OAuth2Error({
    code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION',
    status: 401,
    error: 'insufficient_user_authentication',
    message: description ?? STEP_UP_REQUIRED,
    headers: {
      'WWW-Authenticate': bearerChallenge(
        [
          ['error', 'insufficient_user_authentication'],
          ['error_description', description],
          ['acr_values', acrValues?.join(' ')],
          ['max_age', maxAge === undefined ? undefined : String(maxAge)],
        ],
        options,
      ),
    },
  }).toTRPCError();
}

/** RFC 6749 §5.2 `invalid_client` for malformed Basic credentials: 401 with `WWW-Authenticate: Basic`. */
export function invalidClientError(): TRPCError {
  return new OAuth2Error({
    code: 'ERR_INVALID_CLIENT',
    status: 401,
    error: 'invalid_client',
    message: 'Malformed client credentials in the Basic Authorization header',
    headers: { 'WWW-Authenticate': 'Basic' },
  }).toTRPCError();
}

/** RFC 6749 §5.2 `invalid_request`: 400. */
export function invalidRequestError(message: string): TRPCError {
  return new OAuth2Error({ code: 'ERR_INVALID_REQUEST', status: 400, error: 'invalid_request', message }).toTRPCError();
}

/** tRPC codes of server faults: a verifier failing with one of these keeps it. */
const SERVER_FAULTS: ReadonlySet<string> = new Set(['INTERNAL_SERVER_ERROR', 'NOT_IMPLEMENTED', 'BAD_GATEWAY', 'SERVICE_UNAVAILABLE', 'GATEWAY_TIMEOUT']);

/**
 * What a verifier's failure becomes: its refusal (`invalidTokenError`) answers 401
 * `invalid_token` through the reader's factory; any other failure once the call's `signal`
 * aborted (the client went away) is tRPC's `CLIENT_CLOSED_REQUEST`; a server fault it reports keeps
 * its code; anything else is a 500, never a 401 that blames the client (docs/contract.md#verified-readers).
 */
export function verifierFailure(error: unknown, makeInvalidTokenError: (description: string) => TRPCError, signal?: AbortSignal): TRPCError {
  const refusal = getOAuth2Error(error);
  if (refusal?.code === 'ERR_INVALID_TOKEN') return makeInvalidTokenError(refusal.message);
  // The client went away while the verifier worked (it gave up on the call's signal): not a fault
  // of the server, which `onError` would report as one (tRPC's 499, which no client reads).
  if (signal?.aborted === true && refusal === undefined) return new TRPCError({ code: 'CLIENT_CLOSED_REQUEST', message: 'The client closed the request', cause: error });
  if (error instanceof TRPCError && SERVER_FAULTS.has(error.code)) return error;
  return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'The token verifier failed', cause: error });
}

/**
 * The fault of a security step called without a ctx: tRPC's adapters pass `undefined` when they
 * were given no `createContext`. With no request to read, every call would be refused as
 * anonymous, and a 401 would send the client looking for a fault that is the server's: a 500
 * that names the fix instead (docs/contract.md#reading-the-authorization-header).
 *
 * @example
 * ```ts
 * if (opts.ctx == null) throw noContextError();
 * ```
 */
export function noContextError(): TRPCError {
  return new TRPCError({
    code: 'INTERNAL_SERVER_ERROR',
    message: 'The call has no ctx: give the adapter a createContext that returns the request ({ req }) the security readers read',
  });
}

/**
 * RFC 6750 §3.1 `invalid_request` for a credential sent in the URL (the `connectionParams` query
 * parameter of tRPC's `httpSubscriptionLink`): 400, never read as a credential unless the reader
 * is created with `allowCredentialInUrl: true`. URLs are written to access logs and proxies, and
 * OAuth 2.1 drops the query method; the client sends the `Authorization` header instead (an
 * `EventSource` that sends headers) or uses a WebSocket. Given `resourceMetadata`, the challenge
 * names it (`Bearer error="invalid_request", resource_metadata="…"`), as every other challenge of
 * the reader does: a reader's default factory passes its own.
 *
 * @example
 * ```ts
 * oauth2PasswordBearer({ tokenUrl: 'token', makeCredentialInUrlError: () => credentialInUrlError({ resourceMetadata }) });
 * ```
 */
export function credentialInUrlError(options?: ChallengeOptions): TRPCError {
  return credentialInUrlRefusal(bearerChallenge([['error', 'invalid_request']], options));
}

/**
 * The refusal of a credential in the URL with `challenge` as its `WWW-Authenticate`: the Bearer
 * one of {@link credentialInUrlError}, or a DPoP reader's in the schemes it accepts.
 */
export function credentialInUrlRefusal(challenge: string): TRPCError {
  return new OAuth2Error({
    code: 'ERR_INVALID_REQUEST',
    status: 400,
    error: 'invalid_request',
    message: 'A credential in the URL is refused: send it in the Authorization header',
    headers: { 'WWW-Authenticate': challenge },
  }).toTRPCError();
}

/** What a stream whose access token expired ends with, as `error_description`. */
export const TOKEN_EXPIRED = 'The access token expired';

/**
 * RFC 6750 §3.1 `invalid_token` for a subscription whose access token expired while it streamed:
 * the stream ends with this error (401), and the client resumes with a fresh token and tRPC's
 * `lastEventId`. A reader without `makeTokenExpiredError` builds the same refusal with its own
 * challenge options (`resourceMetadata`) and in the scheme the token came in.
 *
 * @example
 * ```ts
 * oauth2PasswordBearer({ tokenUrl: 'token', verify, makeTokenExpiredError: () => tokenExpiredError({ resourceMetadata }) });
 * ```
 */
export function tokenExpiredError(options?: ChallengeOptions): TRPCError {
  return invalidTokenError(TOKEN_EXPIRED, options);
}
