/**
 * `@trpc-oauth2/core/protocol`: what `@trpc-oauth2/openapi` and other HTTP layers read from a
 * secured router, and not what an application needs to secure one. A security middleware
 * carries its {@link SecurityDeclaration} under {@link SECURITY}; {@link getProcedureSecurity}
 * merges a chain's declarations (docs/contract.md#openapi). The header helpers read the request
 * exactly as the readers do (docs/contract.md#reading-the-authorization-header), and
 * {@link FORM_FIELDS} are the password request form's wire fields
 * (docs/contract.md#the-password-request-form). {@link getTokenEndpoint} tells a token or
 * revocation endpoint's procedure from any other, {@link concealFaultInPlace} keeps the
 * message of its faults out of the response (docs/contract.md#token-responses), and
 * {@link tokenRefusalInPlace} answers a middleware's refusal there as the endpoint answers it
 * (docs/contract.md#client-authentication). The scope
 * grammar, the Basic credential encoding, the rule for an authorization server's or a resource's
 * URL ({@link secureUrl}) and the response header record are the one copy of each rule that the
 * other packages use. {@link signature} is the one JWS signature step (`node:crypto` on Node,
 * WebCrypto elsewhere, picked by the `#signature` import condition), with the compact JWS reading
 * it goes with, shared by `@trpc-oauth2/jwt`'s token verifier and the DPoP proof verifier.
 * @module
 */
export {
  SECURITY,
  getProcedureSecurity,
  expandDeclaration,
  type SecurityDeclaration,
  type DPoPDeclaration,
  type ProcedureSecurity,
  type OAuth2SecurityScheme,
  type OAuthFlows,
  type ScopeMap,
} from './security-declaration.js';
export { readHeader, headersFromContext, responseHeaderRecord, type HeadersLike } from './headers.js';
export { REQUEST_URL, mountedTargetOf } from './request-url.js';
export { isScopeToken, parseScope } from './scope-grammar.js';
export { encodeBasicCredentials } from './basic-credentials.js';
export { canonicalResource, issuerIdentifier, secureUrl } from './resource/resource-identifier.js';
export { FORM_FIELDS, type FormField } from './password-request-form.js';
export { TOKEN_ENDPOINT, checkedMaxBodySize, getTokenEndpoint, type TokenEndpointDeclaration, type DeclaredGrant } from './token-endpoint/declaration.js';
export { concealFaultInPlace } from './token-endpoint/token-errors.js';
export { tokenRefusalInPlace } from './token-endpoint/client-authentication.js';
export { queryFieldsRefusal } from './token-endpoint/query-fields.js';
export { signature } from './jws/runtime-signature.js';
export type { SignatureStep, CompactJws, KeyMaterial } from './jws/signature/step.js';
export { compactJws, isBase64urlSegment, jsonSegment } from './jws/compact.js';
export { deepFreeze } from './deep-freeze.js';
