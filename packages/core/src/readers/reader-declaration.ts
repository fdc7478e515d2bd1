/**
 * What a reader and its scope steps declare for the OpenAPI document and the resource's metadata
 * (the {@link SecurityDeclaration} under `SECURITY`). See docs/contract.md#openapi.
 * @module
 */
import { insufficientUserAuthenticationError } from '../errors.js';
import { SECURITY, type DeclaredRefusals, type OAuth2SecurityScheme, type SecurityDeclaration } from '../security-declaration.js';
import type { Principal, TokenVerifier } from './principal.js';
import type { ReaderAssembly } from './definition.js';
import type { ReaderSettings } from './reader-settings.js';

/** The declaration of a step, given the scopes it requires and whether authentication is optional. */
export type Declare = (scopes: readonly string[], optional?: boolean) => { readonly [SECURITY]: SecurityDeclaration };

/** The scheme of a reader, and how its steps declare themselves. */
export function readerDeclaration(settings: ReaderSettings, description: string | undefined, assembly: ReaderAssembly): { scheme: OAuth2SecurityScheme; declare: Declare } {
  const { definition, dpop, schemeName } = settings;
  const scheme: OAuth2SecurityScheme = Object.freeze(description === undefined ? definition.scheme : { ...definition.scheme, description });
  const verified = settings.verify !== undefined;
  const audience = namedBy(settings.verify, 'audience');
  const issuer = namedBy(settings.verify, 'issuer');
  const dpopDeclared =
    dpop === undefined
      ? undefined
      : Object.freeze({ dpop_signing_alg_values_supported: dpop.algorithms, dpop_bound_access_tokens_required: dpop.mode === 'required' });
  const refusals = verified ? declaredRefusals(settings) : undefined;
  const declare: Declare = (scopes, optional) => ({
    [SECURITY]: Object.freeze({
      schemeName,
      scheme,
      scopes,
      verified,
      ...(audience === undefined ? {} : { audience }),
      ...(issuer === undefined ? {} : { issuer }),
      ...(optional === undefined ? {} : { optional }),
      ...(assembly.alternatives === undefined ? {} : { alternatives: assembly.alternatives }),
      ...(dpopDeclared === undefined ? {} : { dpop: dpopDeclared }),
      ...(refusals === undefined ? {} : { refusals }),
    }),
  });
  return { scheme, declare };
}

/** The description a document shows for a refused token: the verifier's own vary with the cause. */
const REFUSED_TOKEN = 'The access token is invalid';

/**
 * What a verified reader answers when it refuses, as a request meets it: in Bearer's scheme, in
 * DPoP's, or, for a reader that accepts either, in each (docs/contract.md#dpop).
 */
function declaredRefusals({ dpop, makeInvalidTokenError, makeInsufficientScopeError }: ReaderSettings): DeclaredRefusals {
  // A reader that takes DPoP only never reads a Bearer token: it refuses in DPoP's scheme alone
  // (its insufficient-scope factory is DPoP's already).
  const bearer = dpop?.mode !== 'required';
  const both = dpop !== undefined && bearer;
  const refusals: DeclaredRefusals = {
    invalidToken: () => [...(bearer ? [makeInvalidTokenError(REFUSED_TOKEN)] : []), ...(dpop === undefined ? [] : [dpop.invalidToken(REFUSED_TOKEN)])],
    dpopProof: () => dpop?.proofRefusals() ?? [],
    insufficientScope: (scopes: readonly string[]) => [makeInsufficientScopeError(scopes), ...(both ? [dpop.insufficientScope(scopes)] : [])],
    insufficientUserAuthentication: (requirement, options) => [
      ...(bearer ? [insufficientUserAuthenticationError(requirement, options)] : []),
      ...(dpop === undefined ? [] : [dpop.insufficientUserAuthentication(requirement, options)]),
    ],
  };
  return Object.freeze(refusals);
}

/** The audiences or issuers a verifier says it accepts (`@trpc-oauth2/jwt`'s do), for the metadata checks. */
function namedBy(verify: TokenVerifier<Principal> | undefined, member: 'audience' | 'issuer'): readonly string[] | undefined {
  const named = (verify as { audience?: unknown; issuer?: unknown } | undefined)?.[member];
  return Array.isArray(named) && named.every((entry) => typeof entry === 'string') ? Object.freeze([...named]) : undefined;
}
