import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { expect } from 'vitest';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** Where the tests' MCP client is sent back to after logging in (the demo's `demo-mcp` client). */
export const MCP_REDIRECT_URI = 'http://127.0.0.1/callback';

/** The client's side of OAuth, as an application implements it for the MCP SDK: it keeps what it is given. */
export class TestOAuthClient implements OAuthClientProvider {
  readonly redirectUrl: string = MCP_REDIRECT_URI;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'test MCP client',
    redirect_uris: [MCP_REDIRECT_URI],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  /** The authorization URL the SDK sent the user to last. */
  authorizationUrl: URL | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  clientInformation(): OAuthClientInformationMixed | undefined {
    return { client_id: 'demo-mcp' };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/**
 * Where {@link RegisteringOAuthClient} is sent back to: a loopback port of its own, as an MCP
 * client on a person's machine registers it.
 */
export const REGISTERING_REDIRECT_URI = 'http://127.0.0.1:47913/callback';

/**
 * An MCP client that starts with no client of the authorization server: the SDK registers it
 * (RFC 7591) with {@link clientMetadata}, as most MCP clients send it (a refresh grant asked for),
 * and hands it what it registered, which it keeps.
 */
export class RegisteringOAuthClient extends TestOAuthClient {
  override readonly redirectUrl = REGISTERING_REDIRECT_URI;
  override readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'an MCP client that registers itself',
    redirect_uris: [REGISTERING_REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  /** What the registration answered, once the SDK registered the client. */
  registered: OAuthClientInformationMixed | undefined;
  override clientInformation(): OAuthClientInformationMixed | undefined {
    return this.registered;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.registered = information;
  }
}

/**
 * The second half of a step-up the MCP SDK's client makes after a 403 for `items`: the user logs
 * in again (`login` answers the code), the new token carries both scopes for `mcpUrl`, and the
 * tool that needs them answers.
 */
export async function finishStepUpToItems(
  client: Client,
  transport: StreamableHTTPClientTransport,
  oauth: TestOAuthClient,
  login: () => Promise<string>,
  mcpUrl: URL,
): Promise<void> {
  expect(oauth.authorizationUrl!.searchParams.get('scope')).toBe('me items');
  await transport.finishAuth(await login());
  expect(decodeJwt(oauth.tokens()!.access_token)).toMatchObject({ aud: mcpUrl.href, scope: 'me items' });
  const items = await client.callTool({ name: 'my_items' });
  expect(JSON.parse((items.content as { text: string }[])[0]!.text)).toEqual(expect.any(Array));
  await client.close();
}
