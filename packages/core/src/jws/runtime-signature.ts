/**
 * The signature step this runtime loaded, typed as the interface both steps implement. The
 * `#signature` specifier stays inside this module: a declaration file that re-exported it would
 * send every package type-checking against core's `dist` to core's TypeScript sources (the
 * condition's `types` target, there for core's own build).
 * @module
 */
import { signature as loaded } from '#signature';
import type { SignatureStep } from './signature/step.js';

/**
 * The JWS signature step of this runtime: `node:crypto` where there is one, WebCrypto elsewhere.
 *
 * @example
 * ```ts
 * const valid = await signature.verify('ES256', await signature.prepare(publicJwk, 'ES256'), jws);
 * ```
 */
export const signature: SignatureStep = loaded as SignatureStep;
