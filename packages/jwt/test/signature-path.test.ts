// Which signature step a runtime loads: the `#signature` import condition of package.json picks
// `node:crypto` on Node and jose's WebCrypto everywhere else, when the module loads.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signature } from '#signature';

const imports = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  imports: Record<string, Record<string, string>>;
}).imports['#signature']!;

describe('the signature step', () => {
  it('is node:crypto on Node', () => {
    expect(signature.name).toBe('node:crypto');
  });

  it('is WebCrypto under the default condition (edge runtimes, browsers), and neither imports node:crypto by accident', async () => {
    expect(Object.keys(imports)).toEqual(['types', 'node', 'default']);
    const web = await import(new URL(`../${imports.default}`, import.meta.url).href);
    expect(web.signature.name).toBe('webcrypto');
    const source = readFileSync(new URL('../src/signature/web.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/from 'node:/);
  });
});
