/**
 * The revocation endpoint (RFC 7009) as one tRPC procedure: client authentication as at the
 * token endpoint, the `token` / `token_type_hint` form, 200 for a token the server does not know.
 * See docs/contract.md#token-responses.
 * @module
 */
import type { TRPCMutationProcedure } from '@trpc/server';
import { z } from 'zod/v4';
import { textField } from '../form-rules.js';
import { endpointField, endpointForm, parseForm, refuseRepeatedFields } from './endpoint-fields.js';
import { refuseFieldsInQuery } from './query-fields.js';
import { authenticateTokenClient, challengingClientRefusals, type AuthenticateClient } from './client-authentication.js';
import { headersFromContext, type HeadersLike } from '../headers.js';
import { TOKEN_ENDPOINT, checkedMaxBodySize, type TokenEndpointDeclaration } from './declaration.js';
import type { AnyBuilder, ContextOf, MetaOf } from './token-endpoint.js';
import { concealingFaults, tokenError } from './token-errors.js';

/** The fields of RFC 7009 §2.1's request, besides the client's credentials. */
const FIELDS = ['token', 'token_type_hint', 'client_id', 'client_secret'] as const;

/** The revocation form's fields as the resolver checks them: each text, or not sent. */
const REVOCATION_FIELDS = z.object(Object.fromEntries(FIELDS.map((name) => [name, textField(name).optional()])));

/** A parsed revocation request (RFC 7009 §2.1). */
export interface RevocationRequestForm {
  token: string;
  token_type_hint: string | null;
  client_id: string | null;
  client_secret: string | null;
}

/** What a client sends to revoke a token, before parsing. */
export interface RevocationRequestFormInput {
  token: string;
  token_type_hint?: string | null;
  client_id?: string | null;
  client_secret?: string | null;
}

/** The options of {@link revocationEndpoint}. */
export interface RevocationEndpointOptions<TContext, TClient, TTokenType extends string> {
  /** The application's client check, as the token endpoint's (`grantType` is `'revocation'`). */
  authenticateClient: AuthenticateClient<{ ctx: TContext; grantType: 'revocation' }, TClient>;
  /**
   * The token types this server revokes (RFC 7009 §2.1's `token_type_hint` values). A hint naming
   * another is no error: it is passed on as `null`, like no hint, and `revoke` looks the token up
   * in all. A hint is only where to look first (RFC 7009 §2.1): when the token is not of the
   * hinted type, `revoke` must still find it among the others.
   */
  tokenTypes: readonly TTokenType[];
  /**
   * Revokes the token if it is one this server issued to `client`; does nothing for an unknown
   * token (the endpoint answers 200 either way, RFC 7009 §2.2). It may throw `tokenError(…)`.
   */
  revoke: (opts: { form: RevocationRequestForm; tokenTypeHint: TTokenType | null; client: TClient; ctx: TContext }) => void | Promise<void>;
  /** The largest body the HTTP handlers of `@trpc-oauth2/openapi` read for this endpoint (413 beyond it). */
  maxBodySize?: number;
  /** Where the request headers are; default `headersFromContext(ctx)`. */
  getHeaders?: (ctx: TContext) => HeadersLike | null | undefined;
}

/** The procedure {@link revocationEndpoint} returns: a mutation answering `{}` (HTTP 200). */
export type RevocationEndpointProcedure<TMeta> = TRPCMutationProcedure<{
  input: RevocationRequestFormInput | FormData | URLSearchParams;
  output: Record<string, never>;
  meta: TMeta;
}>;

/**
 * A revocation endpoint (RFC 7009) on `procedure`: reads `token` and `token_type_hint` (the
 * password request form's conventions, but a field sent more than once is `invalid_request`,
 * RFC 6749 §3.2), authenticates the client as the token endpoint does
 * (401 `invalid_client`, with `WWW-Authenticate: Basic` only for Basic credentials), passes a
 * hint outside `tokenTypes` on as no hint (RFC 7009 §2.1: the server extends its search to every
 * type it supports), calls `revoke`, and answers 200
 * `{}`, for an unknown token too. A missing `token` is 400 `invalid_request`. The HTTP handlers of
 * `@trpc-oauth2/openapi` answer its refusals in RFC 6749 §5.2's shape with `Cache-Control: no-store`.
 *
 * @example
 * ```ts
 * const revoke = revocationEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/revoke' } }), {
 *   authenticateClient,
 *   tokenTypes: ['refresh_token'],
 *   revoke: ({ form, client }) => refreshTokens.revokeFamily(form.token, client.id),
 * });
 * ```
 */
export function revocationEndpoint<TBuilder extends AnyBuilder, TClient, const TTokenType extends string>(
  procedure: TBuilder,
  options: RevocationEndpointOptions<ContextOf<TBuilder>, TClient, TTokenType>,
): RevocationEndpointProcedure<MetaOf<TBuilder>> {
  const declaration: TokenEndpointDeclaration = Object.freeze({ kind: 'revocation' as const, grants: [], fields: Object.freeze([...FIELDS]), defaultGrantType: null, maxBodySize: checkedMaxBodySize(options.maxBodySize), dpop: null });
  // Any value passes the input, documented as text; the resolver refuses one that is not text as
  // `invalid_request` (see `endpointField`).
  const input = endpointForm({
    token: endpointField({ format: 'password', description: 'The token to revoke' }),
    token_type_hint: endpointField({ enum: [...options.tokenTypes], description: 'What kind of token it is, if the client knows' }),
    client_id: endpointField(),
    client_secret: endpointField({ format: 'password' }),
  });
  Object.defineProperty(input, TOKEN_ENDPOINT, { value: declaration, enumerable: false });
  const getHeaders = options.getHeaders ?? headersFromContext;
  return procedure
    .input(input)
    .output(z.object({}).strict())
    // A fault of `revoke` is answered without its message on every face, a refusal of a client
    // over Basic with its challenge (docs/contract.md#token-responses).
    .mutation(concealingFaults(challengingClientRefusals(getHeaders, async ({ ctx, input: sent }: { ctx: ContextOf<TBuilder>; input: Record<string, unknown> }) => {
      // A field the endpoint reads is never taken from the URL's query (RFC 6749 §2.3.1, RFC 7009 §2.1).
      refuseFieldsInQuery(ctx, FIELDS);
      // A field sent more than once is refused before any is read (RFC 6749 §3.2).
      refuseRepeatedFields(sent);
      const fields = (await parseForm(REVOCATION_FIELDS, sent)) as Record<(typeof FIELDS)[number], string | undefined>;
      if (fields.token === undefined) throw tokenError('invalid_request', 'token: field required');
      const form: RevocationRequestForm = {
        token: fields.token,
        token_type_hint: fields.token_type_hint ?? null,
        client_id: fields.client_id ?? null,
        client_secret: fields.client_secret ?? null,
      };
      const { client } = await authenticateTokenClient(getHeaders(ctx), form, options.authenticateClient, { ctx, grantType: 'revocation' as const });
      // RFC 7009 §2.1: a hint the server cannot use must not stop it finding the token.
      const hint = form.token_type_hint;
      const tokenTypeHint = hint !== null && (options.tokenTypes as readonly string[]).includes(hint) ? (hint as TTokenType) : null;
      await options.revoke({ form, tokenTypeHint, client, ctx });
      return {};
    }))) as never;
}
