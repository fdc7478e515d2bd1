// Which signature step a runtime loads: the `#signature` import condition of core's package.json
// picks `node:crypto` on Node and jose's WebCrypto everywhere else, when the module loads; the
// DPoP proof verifier and, through `@trpc-oauth2/core/protocol`, `@trpc-oauth2/jwt` use that one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signature } from '#signature';
import { signature as handedOn } from '../../src/protocol.js';

const imports = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  imports: Record<string, Record<string, string>>;
}).imports['#signature']!;

describe('the signature step', () => {
  it('is node:crypto on Node, and the one the protocol entry hands on', () => {
    expect(signature.name).toBe('node:crypto');
    expect(handedOn).toBe(signature);
  });

  it('is WebCrypto under the default condition (edge runtimes, browsers), and neither imports node:crypto by accident', async () => {
    expect(Object.keys(imports)).toEqual(['types', 'node', 'default']);
    expect(imports.types).toBe('./src/jws/signature/node.ts');
    const web = await import(new URL(`../../${imports.default}`, import.meta.url).href);
    expect(web.signature.name).toBe('webcrypto');
    for (const file of ['../../src/jws/signature/web.ts', '../../src/jws/signature/step.ts', '../../src/jws/signature/key-restrictions.ts', '../../src/jws/compact.ts']) {
      expect(readFileSync(new URL(file, import.meta.url), 'utf8'), file).not.toMatch(/from 'node:/);
    }
  });
});
