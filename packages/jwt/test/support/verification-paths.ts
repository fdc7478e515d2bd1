import type { JWTPayload } from 'jose';
import { jwtVerifierOn, type JwtPrincipal, type JwtVerifierOptions } from '../../src/jwt-verifier.js';
import type { TokenVerifier } from '../../src/index.js';
import { signature as nodeSignature } from '../../src/signature/node.js';
import type { SignatureStep } from '../../src/signature/step.js';
import { signature as webSignature } from '../../src/signature/web.js';

/**
 * Every way `jwtVerifier` can check a signature: `node:crypto` (what Node loads) and jose's
 * WebCrypto (what runtimes without `node:crypto` load). The security tests run on each.
 */
export const VERIFICATION_PATHS = [nodeSignature, webSignature].map((step) => ({
  name: step.name,
  step: step as SignatureStep,
  jwtVerifier: <TClaims = JWTPayload>(options: JwtVerifierOptions<TClaims>): TokenVerifier<JwtPrincipal<TClaims>> =>
    jwtVerifierOn(step as SignatureStep, options),
}));
