import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** Where the tests' MCP client is sent back to after logging in (the demo's `demo-mcp` client). */
export const MCP_REDIRECT_URI = 'http://127.0.0.1/callback';

/** The client's side of OAuth, as an application implements it for the MCP SDK: it keeps what it is given. */
export class TestOAuthClient implements OAuthClientProvider {
  readonly redirectUrl = MCP_REDIRECT_URI;
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
  clientInformation(): OAuthClientInformationMixed {
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
