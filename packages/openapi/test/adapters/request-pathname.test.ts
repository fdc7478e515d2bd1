import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestPathname } from '../../src/utils/base-path.js';

// The REST Node face matches routes and well-known paths on a target's pathname, read without
// building a URL when the path is plain. Whatever the target, the answer must be the URL's own.

const byUrl = (target: string): string | undefined => {
  try {
    return new URL(target, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
};

// Plain characters and every one that a URL reads in a path of its own: dots, percent signs,
// backslashes, doubled slashes, query and fragment marks, spaces and non-ASCII.
const piece = fc.constantFrom('a', 'Z', '0', '_', '-', '~', '/', '//', '.', '..', '%', '%2e', '%7E', '\\', '?', '#', ' ', '@', ':', 'é', '\t', '[');
const target = fc.array(piece, { maxLength: 12 }).map((pieces) => `/${pieces.join('')}`);

describe('requestPathname', () => {
  it('gives the pathname a URL built from the target has, for any target', () => {
    fc.assert(
      fc.property(fc.oneof(target, fc.string({ maxLength: 24 })), (text) => {
        expect(requestPathname(text)).toBe(byUrl(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('takes a plain path as it is and reads every other one as a URL does', () => {
    expect(requestPathname('/api/items?limit=2')).toBe('/api/items');
    expect(requestPathname('/')).toBe('/');
    expect(requestPathname('/api/./items/../me')).toBe('/api/me');
    expect(requestPathname('//evil.example/api')).toBe('/api');
    expect(requestPathname('/a\\b')).toBe('/a/b');
    expect(requestPathname('/%7e')).toBe('/%7e');
  });
});
