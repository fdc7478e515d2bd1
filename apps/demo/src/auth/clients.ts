import { createHash, timingSafeEqual } from 'node:crypto';
import type { ClientCredentials } from '@trpc-oauth2/core';

/**
 * The clients the token endpoint knows: id → secret. A client that sends an id must be one of
 * these and prove it with its secret. `swagger-ui` is a public client: its secret is the empty
 * string, which RFC 6749 §2.3.1 lets it omit. (Swagger UI's password flow sends
 * `Authorization: Basic base64(client_id ":" client_secret)` by default, so it needs an id.)
 * A client that sends no credentials at all is served as an anonymous public client.
 *
 * @example
 * ```ts
 * DEMO_CLIENTS['demo-cli']; // 'demo-cli-secret'
 * ```
 */
export const DEMO_CLIENTS: Readonly<Record<string, string>> = Object.freeze({
  'demo-cli': 'demo-cli-secret',
  'swagger-ui': '',
});

// Digests have equal length whatever was sent, which timingSafeEqual requires.
const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * A client the token endpoint served: its id, `null` for an anonymous public client.
 *
 * @example
 * ```ts
 * const client: DemoClient = { clientId: 'demo-cli' };
 * ```
 */
export interface DemoClient {
  clientId: string | null;
}

/**
 * Checks the client credentials of a token request (read by core's token endpoint) and returns
 * the client, `{ clientId: null }` for an anonymous public client; `null` for an unknown id or a
 * wrong secret, the same for both, which the token endpoint answers with 401 `invalid_client`.
 *
 * @example
 * ```ts
 * tokenEndpoint(t.procedure, { authenticateClient: (credentials) => authenticateClient(credentials) });
 * ```
 */
export function authenticateClient(
  credentials: ClientCredentials,
  clients: Readonly<Record<string, string>> = DEMO_CLIENTS,
): DemoClient | null {
  if (credentials.method === 'none') return { clientId: null };
  const { clientId, clientSecret } = credentials;
  const expected = clientId !== null && Object.hasOwn(clients, clientId) ? clients[clientId] : undefined;
  // An absent secret is the empty one (RFC 6749 §2.3.1); it only matches a public client's.
  const secretMatches = timingSafeEqual(sha256(clientSecret ?? ''), sha256(expected ?? '\0unknown client'));
  return expected === undefined || !secretMatches ? null : { clientId };
}
