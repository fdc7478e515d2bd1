// jwtVerifier checks signatures with core's step (core's `#signature` import condition picks it:
// see packages/core/test/jws/signature-path.test.ts), handed on by `@trpc-oauth2/core/protocol`:
// jwt has no signature code, nor an import condition, of its own.
import { readFileSync } from 'node:fs';
import { signature } from '@trpc-oauth2/core/protocol';
import { describe, expect, it } from 'vitest';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

describe('the signature step of jwtVerifier', () => {
  it("is core's node:crypto step on Node", () => {
    expect(signature.name).toBe('node:crypto');
    expect(readFileSync(new URL('../src/jwt-verifier.ts', import.meta.url), 'utf8')).toMatch(/signature as runtimeSignature[^;]*from '@trpc-oauth2\/core\/protocol'/);
  });

  it('has no import condition of its own', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { imports?: unknown };
    expect(manifest.imports).toBeUndefined();
  });

  it('is tested on both of core\'s steps', () => {
    expect(VERIFICATION_PATHS.map((path) => path.name)).toEqual(['node:crypto', 'webcrypto']);
  });
});
