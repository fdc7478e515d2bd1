/**
 * The refusal, at start, of metadata that advertises an authorization server whose tokens a
 * reader's verifier refuses.
 * @module
 */

/**
 * Thrown by `protectedResourceMetadata` when it advertises an authorization server (an issuer in
 * `authorizationServers`) that a reader's verifier does not accept: the verifier names its issuers
 * (`@trpc-oauth2/jwt`'s verifiers do) and this one is not among them, spelled exactly. A client may
 * pick any advertised server (RFC 9728 §2), and every token it got there would be refused with
 * `invalid_token`. Stable code `ERR_AUTHORIZATION_SERVER_MISMATCH`.
 *
 * @example
 * ```ts
 * try { protectedResourceMetadata(appRouter, options); } catch (error) {
 *   if (error instanceof AuthorizationServerMismatchError) console.error(error.procedure, error.authorizationServer, error.issuers);
 * }
 * ```
 */
export class AuthorizationServerMismatchError extends Error {
  override readonly name = 'AuthorizationServerMismatchError';
  readonly code = 'ERR_AUTHORIZATION_SERVER_MISMATCH' as const;

  constructor(
    /** The advertised issuer the verifier refuses, as advertised. */
    readonly authorizationServer: string,
    /** The issuers the verifier accepts, as configured. */
    readonly issuers: readonly string[],
    /** The procedure whose chain holds the reader. */
    readonly procedure: string,
    /** The reader's scheme name. */
    readonly schemeName: string,
  ) {
    super(mismatchMessage(authorizationServer, issuers, procedure, schemeName));
  }
}

function mismatchMessage(server: string, issuers: readonly string[], procedure: string, schemeName: string): string {
  const refused =
    `The metadata advertises authorization server ${JSON.stringify(server)}, but the verifier of reader ${JSON.stringify(schemeName)} ` +
    `(procedure ${JSON.stringify(procedure)}) accepts tokens of ${issuers.map((issuer) => JSON.stringify(issuer)).join(', ')} only`;
  const respelled = issuers.find((issuer) => sameIssuerText(issuer, server));
  if (respelled !== undefined) {
    // `https://as.example/` and `https://as.example`: one URL to a browser, two issuers to a
    // verifier, which compares `iss` exactly (RFC 7519 §4.1.1, RFC 8414 §3.3).
    return (
      `${refused}: ${JSON.stringify(respelled)} is another spelling of it, and issuers are compared exactly. ` +
      `Spell both as the authorization server writes its issuer (the \`issuer\` of its metadata)`
    );
  }
  return `${refused}: add ${JSON.stringify(server)} to the verifier's issuers, or advertise only the servers it accepts`;
}

/** Whether two issuers differ only as spellings of one URL (case of scheme and host, default port, a terminating `/`). */
function sameIssuerText(a: string, b: string): boolean {
  const plain = (value: string) => {
    try {
      return new URL(value).href.replace(/\/$/, '');
    } catch {
      return value;
    }
  };
  return plain(a) === plain(b);
}
