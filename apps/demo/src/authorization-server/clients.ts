import type { ClientMetadata } from 'oidc-provider';

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
 * The clients registered on the authorization server. Both are public (no secret: a browser
 * page and a program on a person's machine cannot keep one), so PKCE with S256 is required.
 * `swagger-ui` is the API's Swagger UI, sent back to `/docs/oauth2-redirect.html`;
 * `demo-cli` is the command-line client, sent back to a loopback port of its own; `demo-mcp`
 * is for MCP clients of `/mcp`, on a loopback port too.
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
