/**
 * Client authentication at the token endpoint (RFC 6749 §2.3.1): the Basic `Authorization`
 * header or the form's `client_id` and `client_secret`. See docs/contract.md#client-authentication.
 * @module
 */
import { authorizationSchemeParam, isScheme } from './authorization-scheme.js';
import { decodeBasicCredentials } from './basic-credentials.js';
import { invalidClientError, invalidRequestError } from './errors.js';
import { readHeader, type HeadersLike } from './headers.js';

/** The authentication scheme of RFC 7617, compared case-insensitively. */
const BASIC_SCHEME = 'basic';
/** base64(":"): an empty id and secret, what Swagger UI's password flow sends when none is typed. */
const EMPTY_BASIC = 'Og==';

const BOTH_METHODS = 'Use one client authentication method: the Basic header or the form fields, not both';

/** The client credentials of a token request, and how they came. */
export interface ClientCredentials {
  clientId: string | null;
  clientSecret: string | null;
  /** RFC 7591 names: Basic header, form fields, or no client authentication. */
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
}

const fromForm = (form: { client_id: string | null; client_secret: string | null }): ClientCredentials =>
  form.client_id === null
    ? { clientId: null, clientSecret: null, method: 'none' }
    : { clientId: form.client_id, clientSecret: form.client_secret, method: 'client_secret_post' };

/**
 * Whether a request's client authenticated with the `Authorization` header: Basic credentials,
 * well-formed or not, but for the empty `Basic Og==` (read as none). RFC 6749 §5.2 answers such a
 * client's `invalid_client` with `WWW-Authenticate`.
 *
 * @example
 * ```ts
 * sentBasicCredentials({ authorization: `Basic ${encodeBasicCredentials('api', 's3cret')}` }); // true
 * ```
 */
export function sentBasicCredentials(headers: HeadersLike | null | undefined): boolean {
  const [scheme, encoded] = authorizationSchemeParam(readHeader(headers, 'authorization'));
  return isScheme(scheme, BASIC_SCHEME) && encoded !== EMPTY_BASIC;
}

/**
 * Reads client credentials from `Authorization: Basic` or from the form's `client_id` and
 * `client_secret` (RFC 6749 §2.3.1). Using both is refused with 400 `invalid_request` (a form
 * `client_id` naming the Basic header's own client is no second method, and is accepted);
 * malformed Basic credentials with 401 `invalid_client` and `WWW-Authenticate: Basic`. An empty
 * Basic credential (`Basic Og==`, sent by Swagger UI when no client is typed) counts as none.
 * It does not check the secret: that is the application's job. Pass `headersFromContext(ctx)`
 * (from `@trpc-oauth2/core/protocol`) rather than a Node request's `headers`, which keep only
 * the first of repeated `Authorization` headers.
 *
 * @example
 * ```ts
 * const token = t.procedure.input(passwordRequestForm).mutation(({ ctx, input }) => {
 *   const client = readClientCredentials(headersFromContext(ctx), input);
 *   if (client.clientId !== 'demo') throw new TRPCError({ code: 'UNAUTHORIZED' });
 * });
 * ```
 */
export function readClientCredentials(
  headers: HeadersLike | null | undefined,
  form: { client_id: string | null; client_secret: string | null },
): ClientCredentials {
  const [scheme, encoded] = authorizationSchemeParam(readHeader(headers, 'authorization'));
  if (!isScheme(scheme, BASIC_SCHEME) || encoded === EMPTY_BASIC) return fromForm(form);
  if (form.client_secret !== null) throw invalidRequestError(BOTH_METHODS);
  const credentials = decodeBasicCredentials(encoded);
  // A `client_id` in the form with Basic is no second method when it names the same client: a
  // client MAY identify itself by it (RFC 6749 §3.2.1), and many send it with every grant. One
  // naming another client says two things at once, and is refused as two methods are.
  if (form.client_id !== null && (credentials === undefined || form.client_id !== credentials.clientId)) throw invalidRequestError(BOTH_METHODS);
  if (credentials === undefined) throw invalidClientError();
  // An empty secret (`app:`) is no secret, as an empty form `client_secret` is not sent: the
  // application sees one client whichever method it came by (docs/contract.md#client-authentication).
  // A literal in fromForm's key order, not a spread with an added key: one hidden class for all.
  return { clientId: credentials.clientId, clientSecret: credentials.clientSecret === '' ? null : credentials.clientSecret, method: 'client_secret_basic' };
}
