import { errors, type ClientMetadata } from 'oidc-provider';

/**
 * Where the authorization server sends Swagger UI back to, below the demo's base URL.
 *
 * @example
 * ```ts
 * `${url}${SWAGGER_UI_REDIRECT_PATH}`; // http://127.0.0.1:3000/docs/oauth2-redirect.html
 * ```
 */
export const SWAGGER_UI_REDIRECT_PATH = '/docs/oauth2-redirect.html';

/**
 * The redirect URI of the command-line client: a loopback address, whose port the client picks
 * for each login (RFC 8252 §7.3: the authorization server ignores the port of a loopback URI).
 *
 * @example
 * ```ts
 * `http://127.0.0.1:${port}/callback`; // matches CLI_REDIRECT_URI whatever the port
 * ```
 */
export const CLI_REDIRECT_URI = 'http://127.0.0.1/callback';

/** The same origin under both loopback names a browser may have opened the demo with. */
const loopbackAliases = (baseUrl: string): string[] => {
  const url = new URL(baseUrl);
  const names = url.hostname === '127.0.0.1' || url.hostname === 'localhost' ? ['127.0.0.1', 'localhost'] : [url.hostname];
  return names.map((name) => `${url.protocol}//${name}${url.port === '' ? '' : `:${url.port}`}`);
};

/**
 * The clients registered on the authorization server. All are public (no secret: a browser
 * page and a program on a person's machine cannot keep one), so PKCE with S256 is required.
 * `swagger-ui` is the API's Swagger UI, sent back to `/docs/oauth2-redirect.html`;
 * `demo-cli` is the command-line client, sent back to a loopback port of its own; `demo-mcp`
 * is for MCP clients of `/mcp`, on a loopback port too. Other MCP clients may register
 * themselves (RFC 7591), under {@link applyRegistrationPolicy}.
 *
 * @example
 * ```ts
 * new Provider(issuer, { clients: authorizationServerClients('http://127.0.0.1:3000') });
 * ```
 */
export function authorizationServerClients(baseUrl: string): ClientMetadata[] {
  const common = {
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  } satisfies Partial<ClientMetadata>;
  return [
    {
      ...common,
      client_id: 'swagger-ui',
      client_name: 'Swagger UI of the trpc-oauth2 demo',
      application_type: 'web',
      redirect_uris: loopbackAliases(baseUrl).map((origin) => `${origin}${SWAGGER_UI_REDIRECT_PATH}`),
    },
    {
      // MCP clients (an agent, an IDE): authorization code only, no refresh token, so a client
      // that needs more scopes asks the user again (step-up), with the scopes the 403 names.
      ...common,
      grant_types: ['authorization_code'],
      client_id: 'demo-mcp',
      client_name: 'MCP clients of the trpc-oauth2 demo',
      application_type: 'native',
      redirect_uris: [CLI_REDIRECT_URI],
    },
    {
      ...common,
      client_id: 'demo-cli',
      client_name: 'The trpc-oauth2 demo client (command line)',
      application_type: 'native',
      redirect_uris: [CLI_REDIRECT_URI],
    },
  ];
}

/** The ids of the demo's own clients ({@link authorizationServerClients}), whatever the base URL. */
const DEMO_CLIENT_IDS: ReadonlySet<string> = new Set(authorizationServerClients('http://127.0.0.1').map((client) => client.client_id));

/**
 * Whether `clientId` is one of the demo's own clients, not one that registered itself.
 *
 * @example
 * ```ts
 * isDemoClient('demo-mcp'); // true
 * isDemoClient('G0x…'); // false: registered at /oidc/reg
 * ```
 */
export const isDemoClient = (clientId: string): boolean => DEMO_CLIENT_IDS.has(clientId);

/**
 * How long a client that registered itself is kept, in seconds (30 days): its row then expires
 * like any other of the authorization server's, and the client registers again. Registration is
 * open to anyone, so what it stores must not stay for ever.
 *
 * @example
 * ```ts
 * adapter.upsert(clientId, metadata, REGISTERED_CLIENT_TTL_SECONDS);
 * ```
 */
export const REGISTERED_CLIENT_TTL_SECONDS = 30 * 24 * 60 * 60;

/**
 * The largest registration request (its JSON body), and the largest metadata a client keeps,
 * in bytes: an MCP client's metadata is a few hundred.
 *
 * @example
 * ```ts
 * if (Number(req.headers['content-length']) > MAX_REGISTRATION_BYTES) refuse(413);
 * ```
 */
export const MAX_REGISTRATION_BYTES = 8 * 1024;

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2_000;
const MAX_CLIENT_NAME_LENGTH = 100;

/** The host names of a loopback `http` redirect URI (RFC 8252 §7.3, and `localhost` MCP clients use). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * The metadata a registered client keeps: what the authorization-code flow of a public client
 * needs, and its name. Anything else sent is dropped (RFC 7591 §2: the server may ignore or
 * replace what it does not support), among it what would make the server fetch a URL
 * (`sector_identifier_uri`, `jwks_uri`), hold a key, or need a secret (an `HS256` algorithm).
 */
const KEPT_METADATA: ReadonlySet<string> = new Set([
  'client_id',
  'client_id_issued_at',
  'client_name',
  'client_uri',
  'redirect_uris',
  'grant_types',
  'response_types',
  'token_endpoint_auth_method',
  'application_type',
]);

// Characters that would make a client's name read otherwise on the consent page.
const CONTROL_CHARACTERS = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

const refuse = (description: string): never => {
  // A description that starts with `redirect_uris` is oidc-provider's `invalid_redirect_uri`.
  throw new errors.InvalidClientMetadata(description);
};

/**
 * What a client registering itself at `/oidc/reg` (RFC 7591) may be, applied to `metadata` (what
 * oidc-provider is about to register, from `requested`, the request's body) before oidc-provider's
 * own checks. It is a public client, as the demo's own are: `token_endpoint_auth_method` `none`
 * (`none` too when not sent), PKCE with S256 required like every client. Its grant is
 * `authorization_code`; `refresh_token`, which most MCP clients ask for, is left out, as
 * `demo-mcp` has none: a client that needs another scope after a 403 then asks the user again
 * (step-up), where a refresh would only bring back the same scopes. Its redirect URIs are
 * `http` on a loopback host (`127.0.0.1`, `[::1]`, `localhost`), any port, or `https`: at most
 * 10, each at most 2000 characters, none with credentials or a fragment. A requested `scope`
 * is not kept: which scopes a token carries is decided at consent, by what the user may have, and
 * a client registered with the scope of its first 401 (`me`) could not step up to `items`.
 * Every other field but its name and `client_uri` is dropped. A refusal is RFC 7591's
 * `invalid_redirect_uri` or `invalid_client_metadata` (400).
 *
 * @example
 * ```ts
 * applyRegistrationPolicy({ redirect_uris: ['http://127.0.0.1:8080/callback'] }, metadata); // token_endpoint_auth_method: 'none'
 * ```
 */
export function applyRegistrationPolicy(requested: Record<string, unknown>, metadata: Record<string, unknown>): void {
  if (Buffer.byteLength(JSON.stringify(requested)) > MAX_REGISTRATION_BYTES) {
    refuse(`the client metadata must not be larger than ${MAX_REGISTRATION_BYTES} bytes`);
  }
  const method = requested['token_endpoint_auth_method'];
  if (method !== undefined && method !== 'none') {
    refuse('token_endpoint_auth_method must be none: only public clients (PKCE, no secret) may register');
  }
  metadata['token_endpoint_auth_method'] = 'none';

  const grants = requested['grant_types'];
  if (grants !== undefined) {
    if (!Array.isArray(grants) || !grants.every((grant) => grant === 'authorization_code' || grant === 'refresh_token')) {
      refuse('grant_types must only contain authorization_code (and refresh_token, which is not granted)');
    }
    metadata['grant_types'] = ['authorization_code'];
  }

  const uris = requested['redirect_uris'];
  if (!Array.isArray(uris) || uris.length === 0) refuse('redirect_uris must contain members');
  if ((uris as unknown[]).length > MAX_REDIRECT_URIS) refuse(`redirect_uris must not contain more than ${MAX_REDIRECT_URIS} members`);
  for (const uri of uris as unknown[]) {
    if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) refuse(`redirect_uris must only contain URIs of at most ${MAX_URI_LENGTH} characters`);
    const parsed = URL.parse(uri as string);
    if (parsed === null) refuse('redirect_uris must only contain valid URIs');
    const { protocol, hostname, username, password } = parsed!;
    if (username !== '' || password !== '') refuse('redirect_uris must not contain credentials');
    if (protocol !== 'https:' && !(protocol === 'http:' && LOOPBACK_HOSTS.has(hostname))) {
      refuse('redirect_uris must be https, or http on a loopback host (127.0.0.1, [::1], localhost)');
    }
  }

  const name = requested['client_name'];
  if (typeof name === 'string' && (name.length > MAX_CLIENT_NAME_LENGTH || CONTROL_CHARACTERS.test(name))) {
    refuse(`client_name must be at most ${MAX_CLIENT_NAME_LENGTH} characters, without control characters`);
  }
  if (typeof requested['client_uri'] === 'string' && (requested['client_uri'] as string).length > MAX_URI_LENGTH) {
    refuse(`client_uri must be at most ${MAX_URI_LENGTH} characters`);
  }

  // Dropped; one with a default (an algorithm) goes back to the default.
  for (const key of Object.keys(metadata)) if (!KEPT_METADATA.has(key)) delete metadata[key];
}
