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
