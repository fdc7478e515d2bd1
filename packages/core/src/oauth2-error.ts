import { TRPCError } from '@trpc/server';

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
 *
 * @example
 * ```ts
 * const status: OAuth2ErrorStatus = 401;
 * ```
 */
export type OAuth2ErrorStatus = keyof typeof TRPC_CODE_BY_STATUS;

/**
 * Stable codes, for tests and callers to branch on (the message may change, these do not).
 *
 * @example
 * ```ts
 * if (getOAuth2Error(error)?.code === 'ERR_INSUFFICIENT_SCOPE') showUpgradePrompt();
 * ```
 */
export type OAuth2ErrorCode =
  | 'ERR_NOT_AUTHENTICATED'
  | 'ERR_INVALID_TOKEN'
  | 'ERR_INSUFFICIENT_SCOPE'
  | 'ERR_INVALID_REQUEST'
  | 'ERR_INVALID_CLIENT'
  | (string & {});

/**
 * What an {@link OAuth2Error} is made of.
 *
 * @example
 * ```ts
 * const init: OAuth2ErrorInit = { code: 'ERR_NOT_AUTHENTICATED', status: 401, message: 'Not authenticated' };
 * ```
 */
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

  constructor(init: OAuth2ErrorInit) {
    super(init.message);
    this.code = init.code;
    this.status = init.status;
    this.headers = init.headers ?? {};
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
