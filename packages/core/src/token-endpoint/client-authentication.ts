/**
 * Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1), done once:
 * read the credentials, ask the application, and refuse with the right `invalid_client`.
 * See docs/contract.md#client-authentication.
 * @module
 */
import { TRPCError } from '@trpc/server';
import { readClientCredentials, sentBasicCredentials, type ClientCredentials } from '../client-credentials.js';
import { OAuth2Error, getOAuth2Error } from '../errors.js';
import type { HeadersLike } from '../headers.js';
import { asTokenRefusal, tokenError } from './token-errors.js';

/**
 * The application's client check: given how the client authenticated (`method: 'none'` with
 * both fields `null` for a request without client credentials), return the client (any value the
 * grant handlers need), or `null`, `undefined` or `false` to refuse it with 401 `invalid_client`.
 * Compare secrets in constant time. A client object with a `grantTypes` array may use only those
 * grants (another is 400 `unauthorized_client`).
 */
export type AuthenticateClient<TOpts, TClient> = (
  credentials: ClientCredentials,
  opts: TOpts,
) => TClient | null | undefined | false | Promise<TClient | null | undefined | false>;

/**
 * Authenticates the client of a token request: reads its credentials (`Authorization: Basic` or
 * the form's `client_id` / `client_secret`; both at once is 400 `invalid_request`), asks
 * `authenticate`, and refuses a client it does not return (`null`, `undefined` or `false`) with
 * 401 `invalid_client`. The refusal carries `WWW-Authenticate: Basic` only when the client used
 * the `Authorization` header (RFC 6749 §5.2); one that sent its credentials in the form gets no challenge, which a browser
 * would answer with a login dialog or a stalled `fetch`.
 *
 * @example
 * ```ts
 * const { client } = await authenticateTokenClient(headersFromContext(ctx), form, (credentials) => clients.check(credentials), undefined);
 * ```
 */
export async function authenticateTokenClient<TOpts, TClient>(
  headers: HeadersLike | null | undefined,
  form: { client_id: string | null; client_secret: string | null },
  authenticate: AuthenticateClient<TOpts, TClient>,
  opts: TOpts,
): Promise<{ client: TClient; credentials: ClientCredentials }> {
  const credentials = readClientCredentials(headers, form);
  const client = await authenticate(credentials, opts);
  // `false` refuses too: a check written as a comparison (`secret === stored`) must not let a
  // client through on the `false` it answers for a wrong secret (docs/contract.md#client-authentication).
  if (client === null || client === undefined || client === false) {
    throw tokenError('invalid_client', 'Client authentication failed', { challenge: credentials.method === 'client_secret_basic' });
  }
  return { client, credentials };
}

/**
 * A token or revocation endpoint's resolver whose `invalid_client` refusals carry
 * `WWW-Authenticate: Basic` whenever the request's client authenticated with Basic credentials,
 * as RFC 6749 §5.2 requires: one thrown by a grant's handler, `around` or `revoke` (a client
 * suspended, say) without `challenge` too, and a `TRPCError` of code `UNAUTHORIZED` they throw,
 * which is answered as `invalid_client` (one of code `FORBIDDEN` is 400 `unauthorized_client`:
 * see {@link asTokenRefusal}). A refusal with a challenge of its own, one to a client
 * that sent its credentials in the form (which a browser would answer with a login dialog) and
 * every other error go as they are. See docs/contract.md#client-authentication.
 *
 * @example
 * ```ts
 * procedure.mutation(concealingFaults(challengingClientRefusals(headersFromContext, async ({ ctx, input }) => grant(ctx, input))));
 * ```
 */
export function challengingClientRefusals<$Context, $Options extends { ctx: $Context }, $Result>(
  getHeaders: (ctx: $Context) => HeadersLike | null | undefined,
  resolve: (opts: $Options) => Promise<$Result>,
): (opts: $Options) => Promise<$Result> {
  return async (opts) => {
    try {
      return await resolve(opts);
    } catch (thrown) {
      throw endpointRefusal(thrown, getHeaders(opts.ctx));
    }
  };
}

/**
 * What an error at a token or revocation endpoint is answered as: the refusal
 * {@link asTokenRefusal} makes of it, and an `invalid_client` refusal without a challenge of its
 * own with `WWW-Authenticate: Basic` when the request carried Basic credentials (RFC 6749 §5.2).
 * Any other error is returned as it is.
 */
function endpointRefusal(thrown: unknown, headers: HeadersLike | null | undefined): unknown {
  const error = asTokenRefusal(thrown);
  const refusal = getOAuth2Error(error);
  if (refusal?.error !== 'invalid_client' || Object.keys(refusal.headers).some((name) => name.toLowerCase() === 'www-authenticate')) return error;
  if (!sentBasicCredentials(headers)) return error;
  return new OAuth2Error({
    code: refusal.code,
    status: refusal.status,
    error: refusal.error,
    message: refusal.message,
    headers: { ...refusal.headers, 'WWW-Authenticate': 'Basic' },
  }).toTRPCError();
}

/**
 * An error at a token or revocation endpoint made, where it stands, the refusal the endpoint's
 * resolver answers it with (see {@link challengingClientRefusals}), for an HTTP layer's `onError`,
 * which tRPC's adapters call before they build the response from that same error: one thrown by
 * a middleware of the endpoint's procedure, before the resolver, would otherwise reach the tRPC
 * faces without the `data.oauth2` (`oauth2ErrorData`) the REST faces' body answers it with. A
 * `TRPCError` of code `UNAUTHORIZED` becomes 401 `invalid_client` (with `WWW-Authenticate: Basic`
 * when `headers` carry Basic credentials), one of code `FORBIDDEN` 400 `unauthorized_client`
 * (its tRPC code `BAD_REQUEST`), an `invalid_client` refusal without a challenge gets the Basic
 * one so too; the message is the refusal's description, the stack kept. Any other error is left
 * as it is. See docs/contract.md#client-authentication.
 *
 * @example
 * ```ts
 * onError: ({ error, path, req }) => { if (path === 'auth.token') tokenRefusalInPlace(error, req.headers); },
 * ```
 */
export function tokenRefusalInPlace(error: unknown, headers: HeadersLike | null | undefined): void {
  if (!(error instanceof TRPCError)) return;
  const refusal = endpointRefusal(error, headers);
  if (refusal === error || !(refusal instanceof TRPCError)) return;
  // tRPC reads the code for the status and the shape after onError: the refusal's own is taken.
  Object.defineProperty(error, 'code', { value: refusal.code, writable: true, configurable: true, enumerable: true });
  error.message = refusal.message;
  Object.defineProperty(error, 'cause', { value: refusal.cause, writable: true, configurable: true, enumerable: true });
}
