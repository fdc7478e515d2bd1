import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { SignatureStep } from '@trpc-oauth2/core/protocol';
import type { JWTPayload } from 'jose';
import { jwtVerifierOn, type JwtPrincipal, type JwtVerifierOptions } from '../../src/jwt-verifier.js';
import type { TokenVerifier } from '../../src/index.js';

/**
 * core's signature steps, as its `#signature` import condition names them: the `node` target is
 * what Node loads, the `default` one what runtimes without `node:crypto` load.
 */
async function coreStep(condition: 'node' | 'default'): Promise<SignatureStep> {
  const manifestPath = createRequire(import.meta.url).resolve('@trpc-oauth2/core/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { imports: Record<string, Record<string, string>> };
  const module = (await import(new URL(manifest.imports['#signature']![condition]!, pathToFileURL(manifestPath)).href)) as { signature: SignatureStep };
  return module.signature;
}

const nodeSignature = await coreStep('node');
const webSignature = await coreStep('default');

/**
 * Every way `jwtVerifier` can check a signature: `node:crypto` (what Node loads) and jose's
 * WebCrypto (what runtimes without `node:crypto` load). The security tests run on each.
 */
export const VERIFICATION_PATHS = [nodeSignature, webSignature].map((step) => ({
  name: step.name,
  step,
  jwtVerifier: <TClaims = JWTPayload>(options: JwtVerifierOptions<TClaims>): TokenVerifier<JwtPrincipal<TClaims>> => jwtVerifierOn(step, options),
}));
