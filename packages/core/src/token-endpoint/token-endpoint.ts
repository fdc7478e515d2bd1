/**
 * The token endpoint (RFC 6749 §3.2) as one tRPC procedure: a handler per grant type, client
 * authentication done once, RFC 6749 §5.1 responses and §5.2 refusals.
 * See docs/contract.md#token-responses and docs/contract.md#client-authentication.
 * @module
 */
import type { TRPCMutationProcedure, TRPCProcedureBuilder, inferProcedureBuilderResolverOptions } from '@trpc/server';
import { z } from 'zod/v4';
import { authenticateTokenClient, challengingClientRefusals, type AuthenticateClient } from './client-authentication.js';
import type { ClientCredentials } from '../client-credentials.js';
import {
  clientCredentialsGrantForm,
  passwordGrantForm,
  refreshTokenGrantForm,
  type ClientCredentialsRequestForm,
  type GrantField,
  type GrantForm,
  type RefreshTokenRequestForm,
} from './grant-forms.js';
import { headersFromContext, readHeader, type HeadersLike } from '../headers.js';
import { textField } from '../form-rules.js';
import { endpointField, endpointForm, parseForm, refuseRepeatedFields } from './endpoint-fields.js';
import { refuseFieldsInQuery } from './query-fields.js';
import type { PasswordRequestForm, PasswordRequestFormInput } from '../password-request-form.js';
import { TOKEN_ENDPOINT, checkedMaxBodySize, type DeclaredGrant, type TokenEndpointDeclaration } from './declaration.js';
import { concealingFaults, tokenError } from './token-errors.js';
import type { DPoPProof, DPoPProofVerifier, DPoPRefusal } from '../dpop/proof.js';
import { requestTarget } from '../dpop/request-target.js';
import { pathPrefixOf, publicOrigin } from '../request-url.js';
import type { TypeError } from '../type-error.js';


/** Any tRPC procedure builder. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyBuilder = TRPCProcedureBuilder<any, any, any, any, any, any, any, any>;

/**
 * RFC 6749 §5.1: what a grant handler returns and the endpoint answers with (HTTP 200), checked
 * against {@link tokenResponseSchema} before it is sent. An answer the schema refuses is a fault
 * of the server, answered 500 `server_error` on every face (docs/contract.md#token-responses):
 * TypeScript cannot say "whole number", so `expires_in` is typed `number` and checked at run time.
 *
 * @example
 * ```ts
 * const answer: TokenResponse = { access_token: jwt, token_type: 'Bearer', expires_in: 900, scope: 'me items' };
 * ```
 */
export interface TokenResponse {
  /** The access token. */
  access_token: string;
  /** How to use the access token: `Bearer` (RFC 6750), or `DPoP` for a DPoP-bound one (RFC 9449). */
  token_type: string;
  /**
   * Whole seconds until the access token expires, 0 to 2^31 − 1 (2147483647): `Math.floor` a
   * computed lifetime. A fraction, a negative number, a larger one, `NaN` or `Infinity` is a
   * fault of the server (`server_error`), never sent.
   */
  expires_in?: number;
  /** A token to get a new access token with (RFC 6749 §6). */
  refresh_token?: string;
  /** The scopes granted, separated by spaces (RFC 6749 §3.3). */
  scope?: string;
}

/** The token response's schema (RFC 6749 §5.1), with real examples for the OpenAPI document. */
export const tokenResponseSchema: z.ZodType<TokenResponse> = z
  // Loose: a grant may answer more (RFC 6749 §5.1 allows other parameters, e.g. OpenID's id_token).
  .looseObject({
    access_token: z.string().meta({ description: 'The access token, to send as `Authorization: Bearer …`', examples: ['eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'] }),
    token_type: z.string().meta({ description: 'How to use the access token (RFC 6750)', examples: ['Bearer'] }),
    expires_in: z.int().min(0).max(2_147_483_647).optional().meta({ description: 'Seconds until the access token expires', examples: [900] }),
    refresh_token: z.string().optional().meta({ description: 'A token to get a new access token with (RFC 6749 §6)', examples: ['tGzv3JOkF0XG5Qx2TlKWIA'] }),
    scope: z.string().optional().meta({ description: 'The scopes granted, separated by spaces', examples: ['me items'] }),
  })
  .meta({ id: 'TokenResponse' }) as never;

/**
 * The grants whose forms are ready made: `password` (core's password request form),
 * `refresh_token` (RFC 6749 §6) and `client_credentials` (RFC 6749 §4.4).
 */
export interface BuiltInGrants {
  password: { form: PasswordRequestForm; input: Omit<PasswordRequestFormInput, 'grant_type'> & { grant_type: 'password' } };
  refresh_token: { form: RefreshTokenRequestForm; input: { grant_type: 'refresh_token'; refresh_token: string; scope?: string | null; client_id?: string | null; client_secret?: string | null } };
  client_credentials: { form: ClientCredentialsRequestForm; input: { grant_type: 'client_credentials'; scope?: string | null; client_id?: string | null; client_secret?: string | null } };
}

const BUILT_IN_FORMS: { readonly [K in keyof BuiltInGrants]: GrantForm<K, BuiltInGrants[K]['form'], unknown> } = {
  password: passwordGrantForm,
  refresh_token: refreshTokenGrantForm,
  client_credentials: clientCredentialsGrantForm,
};

/**
 * What a grant handler is called with: the parsed form of its grant, the authenticated client
 * (what `authenticateClient` returned), how it authenticated, and the procedure's `ctx`.
 */
export interface GrantHandlerOptions<TForm, TContext, TClient> {
  form: TForm;
  client: TClient;
  credentials: ClientCredentials;
  ctx: TContext;
  /**
   * The request's DPoP proof, checked (RFC 9449 §5), when the endpoint accepts DPoP and the client
   * sent one: bind what you issue to `dpop.jkt` (an access token's `cnf.jkt`, a public client's
   * refresh token) and answer `token_type: 'DPoP'`. `undefined` otherwise.
   */
  dpop: DPoPProof | undefined;
}

/** A grant's handler: checks the grant and issues tokens, or throws `tokenError(…)`. */
export type GrantHandler<TForm, TContext, TClient, TOutput extends TokenResponse = TokenResponse> = (
  opts: GrantHandlerOptions<TForm, TContext, TClient>,
) => TOutput | Promise<TOutput>;

/**
 * What `around` sees of a token request once its form is parsed, before the client is authenticated.
 */
export interface TokenRequestCall<TContext> {
  grantType: string;
  /** The grant's parsed form (a `PasswordRequestForm` when `grantType` is `password`, …). */
  form: Record<string, unknown>;
  ctx: TContext;
}

/**
 * The options of {@link tokenEndpoint}. `TDefaultGrantType` is the `defaultGrantType` given, which
 * `tokenEndpoint` infers: only that grant's requests may leave `grant_type` out, in the endpoint's
 * input type too (options typed with the default, `string`, let any grant's request leave it out).
 */
export interface TokenEndpointOptions<TContext, TClient, TDefaultGrantType extends string = string> {
  /** The application's client check (see {@link AuthenticateClient}); runs once per request, before the grant's handler. */
  authenticateClient: AuthenticateClient<{ ctx: TContext; grantType: string }, TClient>;
  /**
   * The grant a request without `grant_type` is taken for (FastAPI's permissive form: `'password'`).
   * Unset, `grant_type` is required, as RFC 6749 says. It must be a registered grant (`.build()`
   * throws otherwise, and its type is an error).
   */
  defaultGrantType?: TDefaultGrantType;
  /** The largest body the HTTP handlers of `@trpc-oauth2/openapi` read for this endpoint (413 beyond it). */
  maxBodySize?: number;
  /** Where the request headers are; default `headersFromContext(ctx)`. */
  getHeaders?: (ctx: TContext) => HeadersLike | null | undefined;
  /**
   * Runs around client authentication and the grant's handler (`next`), e.g. to throttle failed
   * logins: it may refuse before anything is checked, and sees every refusal `next` throws. Its
   * answer is checked as a handler's is (see {@link TokenResponse}). It answers what `next`
   * answered (or throws): the endpoint's output type is what the handlers return, so an answer of
   * its own (`{ access_token, token_type }` without the `refresh_token` every handler returns)
   * would reach the client as a type it does not have.
   */
  around?: <$Answer extends TokenResponse>(call: TokenRequestCall<TContext>, next: () => Promise<$Answer>) => Promise<$Answer>;
  /**
   * Accept DPoP proofs on token requests (RFC 9449 §5), and say how to check them; or where the
   * request's `ctx` holds that (an application that builds its services at startup). The OpenAPI
   * document then lists the `DPoP` request header and the refusals `invalid_dpop_proof` and, when
   * the proof checker has `nonces` (or the options come from `ctx`), `use_dpop_nonce` with `DPoP-Nonce`.
   */
  dpop?: TokenEndpointDPoPOptions | ((ctx: TContext) => TokenEndpointDPoPOptions);
}

/**
 * How a token endpoint checks DPoP proofs.
 *
 * @example
 * ```ts
 * const dpop: TokenEndpointDPoPOptions = { proofs: dpopProofVerifier({ nonces }), origin: 'https://api.example.com' };
 * ```
 */
export interface TokenEndpointDPoPOptions {
  /** The proof checker: its algorithms, replay store and nonces (`dpopProofVerifier(…)`). */
  proofs: DPoPProofVerifier;
  /**
   * The public origin clients call the endpoint at (`https://api.example.com`): a proof's `htu`
   * must be this origin and the request's path. Never taken from the `Host` header.
   */
  origin: string;
  /**
   * The path a proxy in front strips off before the request reaches the application (`/svc`):
   * it goes between `origin` and the request's path in the URL the proof must name. A path only;
   * anything else is refused as `origin` is.
   */
  pathPrefix?: string;
  /** Refuse token requests without a proof (default `false`: they get what the grant issues without DPoP). */
  required?: boolean;
}

/** The context a builder's resolvers get. */
export type ContextOf<TBuilder extends AnyBuilder> = inferProcedureBuilderResolverOptions<TBuilder>['ctx'];
/** The meta type of a builder (`OpenApiMeta`, …). */
export type MetaOf<TBuilder extends AnyBuilder> = TBuilder extends TRPCProcedureBuilder<any, infer $Meta, any, any, any, any, any, any> ? $Meta : never;

/** `unknown` when `TGrantType` is new, a readable error when it is registered already. */
type NotRegistered<TGrantType extends string, TGrants> = TGrantType extends keyof TGrants
  ? TypeError<`grant_type "${TGrantType}" is registered already`>
  : unknown;

/**
 * What a client may send for the registered grants `TGrants`: each grant's request with its own
 * `grant_type`, exactly as the endpoint matches it; the request of `TDefaultGrantType` (the
 * endpoint's `defaultGrantType`) may leave it out. With no default, every request names its grant.
 */
type TokenRequestInput<TGrants, TDefaultGrantType extends string = never> = {
  [K in keyof TGrants]: K extends TDefaultGrantType ? Omit<TGrants[K], 'grant_type'> & { grant_type?: K | null } : TGrants[K];
}[keyof TGrants];

/**
 * The procedure {@link TokenEndpointBuilder.build} returns: a mutation whose input is any of the
 * registered grants' requests, each naming its `grant_type` (which the request of
 * `TDefaultGrantType`, the endpoint's `defaultGrantType`, may leave out), and whose output is the
 * RFC 6749 §5.1 token response.
 */
export type TokenEndpointProcedure<TGrants, TMeta, TOutput extends TokenResponse = TokenResponse, TDefaultGrantType extends string = never> = TRPCMutationProcedure<{
  input: TokenRequestInput<TGrants, TDefaultGrantType> | FormData | URLSearchParams;
  output: TOutput;
  meta: TMeta;
}>;

/** The procedure, or a readable error when the endpoint cannot be built: no grant, or a `defaultGrantType` not registered. */
type BuiltTokenEndpoint<TGrants, TMeta, TOutput extends TokenResponse, TDefaultGrantType extends string> = keyof TGrants extends never
  ? TypeError<'Register at least one grant with .grant() before .build()'>
  : [TDefaultGrantType] extends [keyof TGrants]
    ? TokenEndpointProcedure<TGrants, TMeta, TOutput, TDefaultGrantType>
    : string extends TDefaultGrantType
      ? TokenEndpointProcedure<TGrants, TMeta, TOutput, TDefaultGrantType>
      : TypeError<`defaultGrantType "${TDefaultGrantType}" is not a registered grant`>;

/**
 * Registers grants one by one, then builds the token endpoint's procedure. `TGrants` maps each
 * registered `grant_type` to what a client sends for it; `TOutput` is what the handlers return;
 * `TDefaultGrantType` is the endpoint's `defaultGrantType` (`never` when it has none).
 */
export interface TokenEndpointBuilder<TContext, TMeta, TClient, TGrants, TOutput extends TokenResponse = never, TDefaultGrantType extends string = never> {
  /**
   * Registers a ready-made grant (`password`, `refresh_token`, `client_credentials`): the handler
   * gets the grant's parsed form.
   *
   * @example
   * ```ts
   * builder.grant('refresh_token', ({ form, client }) => rotate(form.refresh_token, client));
   * ```
   */
  grant<TGrantType extends keyof BuiltInGrants, $Output extends TokenResponse>(
    grantType: TGrantType & NotRegistered<TGrantType, TGrants>,
    handler: GrantHandler<BuiltInGrants[TGrantType]['form'], TContext, TClient, $Output>,
  ): TokenEndpointBuilder<TContext, TMeta, TClient, TGrants & { [K in TGrantType]: BuiltInGrants[K]['input'] }, TOutput | $Output, TDefaultGrantType>;
  /**
   * Registers any grant with its form (`authorizationCodeGrantForm`, or one made with
   * `defineGrantForm`): the handler gets the form as that form parses it. A client's request for
   * it names `grant_type` exactly, whatever the form's own input type lets through.
   *
   * @example
   * ```ts
   * builder.grant('authorization_code', authorizationCodeGrantForm, ({ form }) => exchange(form.code, form.code_verifier));
   * ```
   */
  grant<TGrantType extends string, TForm, TInput, $Output extends TokenResponse>(
    grantType: TGrantType & NotRegistered<TGrantType, TGrants>,
    form: GrantForm<TGrantType, TForm, TInput>,
    handler: GrantHandler<TForm, TContext, TClient, $Output>,
  ): TokenEndpointBuilder<
    TContext,
    TMeta,
    TClient,
    TGrants & { [K in TGrantType]: Exclude<TInput, FormData | URLSearchParams> & { grant_type: K } },
    TOutput | $Output,
    TDefaultGrantType
  >;
  /**
   * The token endpoint's procedure, a mutation: RFC 6749 §5.1 on success, §5.2 refusals
   * (`unsupported_grant_type` for a grant not registered, `invalid_request` naming the fields of
   * a form its grant refuses, `invalid_client`, and whatever the handlers throw). A readable type
   * error instead when no grant is registered, or `defaultGrantType` names none of them.
   *
   * @example
   * ```ts
   * const appRouter = t.router({ token: builder.build() });
   * ```
   */
  build(): BuiltTokenEndpoint<TGrants, TMeta, TOutput, TDefaultGrantType>;
}

interface RegisteredGrant {
  form: GrantForm<string, Record<string, unknown>, unknown>;
  handler: GrantHandler<any, unknown, unknown>;
}

/** Every field of every grant, once: the endpoint's input, documented as one form. */
function mergedFields(grants: readonly DeclaredGrant[]): Map<string, GrantField & { grants: string[] }> {
  const merged = new Map<string, GrantField & { grants: string[] }>();
  for (const { grantType, fields } of grants) {
    for (const [name, field] of Object.entries(fields)) {
      const known = merged.get(name);
      if (known === undefined) merged.set(name, { ...field, required: false, grants: [grantType] });
      else known.grants.push(grantType);
    }
  }
  return merged;
}

/**
 * The endpoint's input parser: the fields every registered grant reads, empty values absent and
 * a field sent more than once marked for the resolver to refuse (RFC 6749 §3.2), documented as
 * text but checked in the resolver (see `endpointField`). It carries the endpoint's declaration
 * under {@link TOKEN_ENDPOINT}; the grant's own form is applied in the resolver, once
 * `grant_type` is known.
 */
function endpointInput(declaration: TokenEndpointDeclaration): z.ZodType {
  const fields = mergedFields(declaration.grants);
  const grantTypes = declaration.grants.map((grant) => grant.grantType);
  const shape: Record<string, z.ZodType> = {
    grant_type: endpointField({ description: 'The grant: one of the registered grant types', enum: grantTypes, examples: [grantTypes[0]] }),
  };
  for (const [name, field] of fields) {
    const meta: Record<string, unknown> = { description: `${field.description ? `${field.description}. ` : ''}Read by: ${field.grants.join(', ')}` };
    if (field.secret) meta.format = 'password';
    // Swagger UI prefills a form field with its example, else with "string" (or "********" for a
    // secret): credentials nobody typed, which fail client authentication. Empty means absent.
    meta.examples = [field.example ?? ''];
    shape[name] = endpointField(meta);
  }
  const schema = endpointForm(shape);
  Object.defineProperty(schema, TOKEN_ENDPOINT, { value: declaration, enumerable: false });
  return schema;
}

/** `grant_type` as the endpoint reads it before picking the grant: text, or not sent. */
const GRANT_TYPE = z.object({ grant_type: textField('grant_type').optional() });

/** A token request's checked proof, and what is left to do with its `jti` once the request is answered. */
interface TokenRequestProof {
  readonly proof: DPoPProof;
  /** Records the `jti` once the grant succeeded (throws `invalid_dpop_proof` for a replay); absent when it is recorded already. */
  readonly record: (() => Promise<void>) | undefined;
  /** Forgets the `jti` recorded before the grant, when the request failed; absent when nothing was recorded before it. */
  readonly release: (() => Promise<void>) | undefined;
}

/**
 * The token request's DPoP proof, checked against the request's method and public URL
 * (`undefined` when there is none and none is required); a refused proof is RFC 9449 §5's
 * `invalid_dpop_proof`, or §8's `use_dpop_nonce` with the nonce in `DPoP-Nonce`. The replay
 * store is bounded and refuses new proofs when full, so a proof sent with a grant that fails,
 * by anyone, must hold no room in it once the request is answered:
 * - a store that can forget (`release`) records the `jti` before the grant runs and forgets it
 *   when the request fails before the grant's handler returned: of requests racing with one
 *   proof, on one instance or on several sharing the store, exactly one runs its grant;
 * - otherwise the `jti` is recorded once the grant succeeded, and a proof the store would refuse
 *   already (`wouldRefuse`) is refused before the grant runs.
 */
function tokenRequestProof<TContext>(dpop: TokenEndpointDPoPOptions | ((ctx: TContext) => TokenEndpointDPoPOptions)) {
  // The public URL the endpoint's path goes under: checked once, here, for options given as they
  // are; per request for options from ctx.
  const baseOf = (options: TokenEndpointDPoPOptions) =>
    `${publicOrigin(options.origin, 'tokenEndpoint: dpop.origin')}${pathPrefixOf(options.pathPrefix, 'tokenEndpoint: dpop.pathPrefix')}`;
  const fixed = typeof dpop === 'function' ? undefined : { options: dpop, base: baseOf(dpop) };
  return async (ctx: TContext, headers: HeadersLike | null | undefined): Promise<TokenRequestProof | undefined> => {
    const options = fixed?.options ?? (dpop as (ctx: TContext) => TokenEndpointDPoPOptions)(ctx);
    // Options from ctx are checked for every request, as fixed ones are for all: with a proof or not.
    const base = fixed?.base ?? baseOf(options);
    const proof = readHeader(headers, 'dpop');
    if (proof === undefined && !options.required) return undefined;
    const target = requestTarget(ctx, base);
    if (target === undefined) throw tokenError('invalid_dpop_proof', 'The request URL is unknown, so no DPoP proof can be checked');
    const checked = await options.proofs({ ...target, proof, recordLater: true });
    if (!checked.ok) throw proofRefusal(checked.refusal);
    const { record, release } = checked;
    if (record !== undefined && release !== undefined) {
      const replayed = await record();
      if (replayed !== undefined) throw proofRefusal(replayed);
      return { proof: checked.proof, record: undefined, release };
    }
    // A proof the replay store would refuse (used before, or no room for it) is refused before
    // the grant runs: a single-use grant (a refresh token) is not spent for an answer refused after.
    const previewed = await checked.preview?.();
    if (previewed !== undefined) throw proofRefusal(previewed);
    return {
      proof: checked.proof,
      record:
        record &&
        (async () => {
          const replayed = await record();
          if (replayed !== undefined) throw proofRefusal(replayed);
        }),
      release: undefined,
    };
  };
}

/** What the endpoint's DPoP options let the OpenAPI document say (see `TokenEndpointDeclaration.dpop`). */
function declaredDPoP<TContext>(dpop: TokenEndpointDPoPOptions | ((ctx: TContext) => TokenEndpointDPoPOptions) | undefined): TokenEndpointDeclaration['dpop'] {
  if (dpop === undefined) return null;
  // Options from ctx are known only per request: declared as what they may do.
  if (typeof dpop === 'function') return Object.freeze({ required: null, nonces: true, algorithms: null });
  return Object.freeze({ required: dpop.required === true, nonces: dpop.proofs.nonces !== undefined, algorithms: Object.freeze([...dpop.proofs.algorithms]) });
}

/**
 * A grant's answer (its handler's, or `around`'s) as the endpoint may send it: one that
 * {@link tokenResponseSchema} refuses (`expires_in` not whole seconds, …) is a fault of the server,
 * thrown here, inside the resolver, so that every face answers it as `server_error` without its
 * message, and never tRPC's own output check ("Output validation failed"). The issues name the
 * fields, for `onError` and the logs.
 */
function checkedAnswer<$Answer>(answer: $Answer, grantType: string): $Answer {
  const checked = tokenResponseSchema.safeParse(answer);
  if (checked.success) return answer;
  const issues = checked.error.issues.map((issue) => `${issue.path.join('.') || '(answer)'}: ${issue.message}`).join('; ');
  throw new Error(`The ${grantType} grant answered what RFC 6749 §5.1 refuses as a token response: ${issues}`, { cause: checked.error });
}

const proofRefusal = (refusal: DPoPRefusal) =>
  refusal.error === 'use_dpop_nonce'
    ? tokenError('use_dpop_nonce', 'Authorization server requires nonce in DPoP proof', { dpopNonce: refusal.nonce })
    : tokenError('invalid_dpop_proof', refusal.description);

/**
 * Starts a token endpoint (RFC 6749 §3.2) on `procedure` (your `t.procedure`, with any meta such
 * as `openapi`, and middlewares): register each grant with `.grant()`, then `.build()` the one
 * mutation that serves them all. For each request it parses the fields (a field sent more than
 * once is `invalid_request`, RFC 6749 §3.2), picks the grant by
 * `grant_type` (`unsupported_grant_type` when none is registered for it), parses the grant's
 * form (`invalid_request` naming the fields), authenticates the client once (RFC 6749 §2.3.1,
 * see `authenticateTokenClient`), and calls the grant's handler. Refusals are RFC 6749 §5.2:
 * `@trpc-oauth2/openapi`'s handlers answer them over REST as `{ error, error_description }` and
 * on every face with `Cache-Control: no-store` (as `oauth2ResponseMeta` does on tRPC's own adapters).
 *
 * @example
 * ```ts
 * const token = tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), {
 *   authenticateClient: ({ method }) => (method === 'none' ? { id: null } : null),
 * })
 *   .grant('password', async ({ form }) => issueTokens(await users.check(form.username, form.password)))
 *   .grant('refresh_token', async ({ form }) => rotate(form.refresh_token))
 *   .build();
 * ```
 */
export function tokenEndpoint<TBuilder extends AnyBuilder, TClient, $DefaultGrantType extends string = never>(
  procedure: TBuilder,
  options: TokenEndpointOptions<ContextOf<TBuilder>, TClient, $DefaultGrantType>,
): TokenEndpointBuilder<ContextOf<TBuilder>, MetaOf<TBuilder>, TClient, {}, never, $DefaultGrantType> {
  const grants = new Map<string, RegisteredGrant>();
  const builder = {
    grant(grantType: string, formOrHandler: unknown, maybeHandler?: unknown) {
      if (grants.has(grantType)) throw new TypeError(`grant_type "${grantType}" is registered already`);
      const form = (maybeHandler === undefined ? BUILT_IN_FORMS[grantType as keyof BuiltInGrants] : formOrHandler) as RegisteredGrant['form'] | undefined;
      const handler = (maybeHandler ?? formOrHandler) as RegisteredGrant['handler'];
      if (form === undefined) throw new TypeError(`grant_type "${grantType}" has no ready-made form: pass its form (defineGrantForm) before the handler`);
      if (form.grantType !== grantType) throw new TypeError(`The form of "${form.grantType}" cannot serve grant_type "${grantType}"`);
      grants.set(grantType, { form, handler });
      return builder;
    },
    build() {
      if (grants.size === 0) throw new TypeError('Register at least one grant with .grant() before .build()');
      if (options.defaultGrantType !== undefined && !grants.has(options.defaultGrantType)) {
        throw new TypeError(`defaultGrantType "${options.defaultGrantType}" is not a registered grant`);
      }
      const declared = Object.freeze([...grants.values()].map(({ form }) => Object.freeze({ grantType: form.grantType, fields: form.fields })));
      const declaration: TokenEndpointDeclaration = Object.freeze({
        kind: 'token' as const,
        grants: declared,
        fields: Object.freeze(['grant_type', ...mergedFields(declared).keys()]),
        defaultGrantType: options.defaultGrantType ?? null,
        maxBodySize: checkedMaxBodySize(options.maxBodySize),
        dpop: declaredDPoP(options.dpop),
      });
      const supported = `Supported grant types: ${[...grants.keys()].join(', ')}`;
      const getHeaders = options.getHeaders ?? headersFromContext;
      const checkProof = options.dpop === undefined ? undefined : tokenRequestProof(options.dpop);
      return procedure
        .input(endpointInput(declaration))
        .output(tokenResponseSchema)
        // A fault of a grant handler is answered without its message on every face, a refusal of
        // a client over Basic with its challenge (docs/contract.md#token-responses).
        .mutation(concealingFaults(challengingClientRefusals(getHeaders, async ({ ctx, input }: { ctx: ContextOf<TBuilder>; input: Record<string, unknown> }) => {
          // A field the endpoint reads is never taken from the URL's query, nor left there unread
          // (RFC 6749 §2.3.1: client credentials MUST NOT be in the request URI).
          refuseFieldsInQuery(ctx, declaration.fields);
          // A field sent more than once is refused before any is read (RFC 6749 §3.2); a value that
          // is not text here, by the grant's form below for its other fields: `invalid_request` on
          // every face (docs/contract.md#token-responses).
          refuseRepeatedFields(input);
          const grantType = (await parseForm(GRANT_TYPE, input)).grant_type ?? options.defaultGrantType;
          if (grantType === undefined) throw tokenError('invalid_request', 'grant_type: field required');
          const grant = grants.get(grantType);
          if (grant === undefined) throw tokenError('unsupported_grant_type', supported);
          // grant_type first, then the input's fields (a spread keeps a field named `__proto__` a
          // field): a spread followed by a key the input lacks would give each call a hidden class
          // of its own on Node 20.
          const withGrantType: Record<string, unknown> = { grant_type: grantType, ...input };
          withGrantType.grant_type = grantType;
          const form = (await parseForm(grant.form.schema, withGrantType)) as Record<string, unknown> & {
            client_id: string | null;
            client_secret: string | null;
          };
          const checked = checkProof === undefined ? undefined : await checkProof(ctx, getHeaders(ctx));
          // Whether the grant's handler returned: from then on a code or refresh token may be spent
          // and tokens issued, so the proof stays recorded, whatever fails after.
          let granted = false;
          const answer = async () => {
            const { client, credentials } = await authenticateTokenClient(getHeaders(ctx), form, options.authenticateClient, { ctx, grantType });
            const allowed = (client as { grantTypes?: unknown } | null)?.grantTypes;
            if (Array.isArray(allowed) && !allowed.includes(grantType)) {
              throw tokenError('unauthorized_client', `This client may not use the ${grantType} grant`);
            }
            const handled = await grant.handler({ form, client, credentials, ctx, dpop: checked?.proof });
            granted = true;
            const issued = checkedAnswer(handled, grantType);
            // Recorded once the grant succeeded, when the store could not record it before. A
            // replay of this proof racing the request is refused here; its grant may have run
            // too, but a single-use one (a code, a refresh token) let only one of the two through.
            await checked?.record?.();
            return issued;
          };
          const { around } = options;
          const next = around ? async () => checkedAnswer(await around({ grantType, form, ctx }, answer), grantType) : answer;
          if (checked?.release === undefined) return next();
          try {
            return await next();
          } catch (error) {
            // The proof was recorded before the grant: a request refused before its grant ran
            // leaves no room taken. One whose grant ran (and `around`, or the answer's check,
            // failed after) keeps it recorded: the grant may have spent what a replay would spend
            // again. If the store cannot forget it now, it stays recorded until it expires: its
            // replay is refused, as RFC 9449 §11.1 has it, and the request's own error is the answer.
            if (!granted) await checked.release().catch(() => undefined);
            throw error;
          }
        })));
    },
  };
  return builder as never;
}
