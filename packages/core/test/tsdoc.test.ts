import { describe, expect, it } from 'vitest';
import { exportedDocs } from './support/exported-docs.js';

const exported = exportedDocs(new URL('../src/index.ts', import.meta.url).pathname);

describe('TSDoc', () => {
  it('the package exports its public API', () => {
    expect(exported.length).toBeGreaterThan(30);
  });

  it.each(exported)('$name has a description and an @example', ({ documented, tags }) => {
    expect(documented).toBe(true);
    expect(tags).toContain('example');
  });
});
