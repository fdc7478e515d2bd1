import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestTarget } from '../../src/dpop/request-target.js';
import { verifyRequestOf } from '../../src/readers/verify-request.js';
import { pathPrefixOf, publicOrigin } from '../../src/request-url.js';

// docs/contract.md#verified-readers, #dpop: the URL a verifier sees and a DPoP proof must name is
// the application's origin, its path prefix, then the path the client sent. Over every prefix an
// application may configure and every request target a client may send, nothing in either moves
// the URL to another origin, and the prefix is always where it was put.

const RUNS = { numRuns: 1000 };
const ORIGIN = 'https://api.example';

/** Text from the characters that change how a URL is read: separators, dots, escapes, userinfo, ports, non-ASCII. */
const urlish = fc.string({ unit: fc.constantFrom('/', '/', 'a', 'B', '.', '..', '%', '2F', '2e', '?', '#', '\\', ':', '@', ' ', 'é', '//', 'evil.example'), maxLength: 14 });
/** A request target as a client may send it: mostly paths, some starting `//` or not with `/` at all. */
const target = fc.oneof(urlish.map((text) => `/${text}`), urlish.map((text) => `//${text}`), urlish);

/** The prefix as it stands in the URL: what pathPrefixOf returns, its percent-encodings as the URL parser writes them. */
const accepted = (prefix: string): string | undefined => {
  try {
    return pathPrefixOf(prefix, 'pathPrefix');
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return undefined;
  }
};

describe('the public URL of a request', () => {
  it('a path prefix is refused, or kept as a path that names no host, no query and no fragment', () => {
    fc.assert(
      fc.property(urlish, (prefix) => {
        const kept = accepted(prefix);
        if (kept === undefined || kept === '') return;
        expect(kept.startsWith('/')).toBe(true);
        expect(kept.startsWith('//')).toBe(false);
        expect(kept.endsWith('/')).toBe(false);
        expect(kept).not.toMatch(/[?#\\]/);
        // Read again, it is itself: configuring it twice cannot move it.
        expect(pathPrefixOf(kept, 'pathPrefix')).toBe(kept);
      }),
      RUNS,
    );
  });

  it('the verifier’s URL and the proof’s are on the application’s origin, below its prefix, whatever the target and the Host header', () => {
    fc.assert(
      fc.property(urlish, target, (prefix, sent) => {
        const kept = accepted(prefix);
        if (kept === undefined) return;
        const ctx = { req: { method: 'GET', url: sent, headers: { host: 'evil.example' } } };
        let seen: string;
        try {
          seen = verifyRequestOf({ ctx }, ctx.req.headers, ORIGIN, kept).url;
        } catch {
          return; // a target no URL is built from: the adapters answer it 400 before any reader
        }
        for (const url of [seen, requestTarget(ctx, `${ORIGIN}${kept}`)?.url]) {
          if (url === undefined) continue;
          const parsed = new URL(url);
          expect(parsed.origin).toBe(ORIGIN);
          expect(parsed.username + parsed.password).toBe('');
          expect(parsed.pathname === kept || parsed.pathname.startsWith(`${kept}/`)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('an origin is refused, or kept as the http(s) origin of what was given and nothing else', () => {
    const given = fc.oneof(
      fc.tuple(fc.constantFrom('https://', 'http://', 'HTTPS://', 'ftp://', 'javascript:', ''), urlish).map(([scheme, rest]) => `${scheme}api.example${rest}`),
      fc.webUrl(),
    );
    fc.assert(
      fc.property(given, (origin) => {
        let kept: string;
        try {
          kept = publicOrigin(origin, 'origin');
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          return;
        }
        const url = new URL(origin);
        expect(kept).toBe(url.origin);
        expect(['http:', 'https:']).toContain(url.protocol);
        expect(url.pathname).toBe('/');
        expect(url.search + url.hash + url.username + url.password).toBe('');
        // What was given names no path, not even one the URL parser resolves to `/` (`/svc/..`).
        expect(origin.trim()).toMatch(/^[a-z][a-z0-9+.-]*:\/\/[^/\\?#]*\/?$/i);
      }),
      RUNS,
    );
  });
});
