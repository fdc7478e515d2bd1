/**
 * The DPoP scheme of the document (RFC 9449 §7.1): a reader that accepts DPoP is documented with
 * its OAuth 2.0 scheme (where tokens come from) and an HTTP scheme `DPoP` (how a bound token is
 * sent), listed as an alternative when DPoP is allowed and alone when it is required.
 * See docs/contract.md#dpop.
 * @module
 */
import type { SecurityDeclaration } from '@trpc-oauth2/core/protocol';
import type { SecuritySchemeObject } from 'trpc-to-openapi';

/** The DPoP scheme's name for a reader's scheme: the reader's name with `DPoP` after it. */
export function dpopSchemeName(schemeName: string): string {
  return `${schemeName}DPoP`;
}

/**
 * The HTTP `DPoP` scheme (`type: http`, `scheme: DPoP`, the authentication scheme IANA registers
 * for RFC 9449) of a declaration whose reader accepts DPoP, under {@link dpopSchemeName}.
 */
export function dpopSchemeOf(declaration: SecurityDeclaration): { name: string; scheme: SecuritySchemeObject } | undefined {
  const { dpop } = declaration;
  if (dpop === undefined) return undefined;
  const only = dpop.dpop_bound_access_tokens_required ? 'Only DPoP-bound' : 'DPoP-bound';
  return {
    name: dpopSchemeName(declaration.schemeName),
    scheme: {
      type: 'http',
      scheme: 'DPoP',
      description:
        `${only} access tokens (RFC 9449) of the ${declaration.schemeName} scheme: send \`Authorization: DPoP <token>\` and a \`DPoP\` proof header ` +
        `signed with ${dpop.dpop_signing_alg_values_supported.join(', ')}.`,
    },
  };
}
