import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalResource, issuerIdentifier, secureUrl } from '../../src/resource/resource-identifier.js';

const refused = (value: string) => `option must be an https: URL (http: on a loopback host only), not ${JSON.stringify(value)}`;

describe('secureUrl: http only on a loopback host (127.0.0.0/8, [::1], localhost)', () => {
  it.each([
    'http://localhost:3000/mcp',
    'http://LOCALHOST/',
    'http://127.0.0.1:3000',
    'http://127.0.0.2:3000',
    'http://127.0.0.53',
    'http://127.1.2.3',
    'http://127.255.255.255',
    'http://[::1]:3000',
    // Other spellings the URL parser turns into a loopback address first.
    'http://127.1',
    'http://0x7f.1',
    'http://2130706433',
    'http://0177.0.0.1',
    'http://[0:0:0:0:0:0:0:1]',
  ])('accepts http on %s', (value) => {
    expect(secureUrl(value, 'option').protocol).toBe('http:');
  });

  it.each([
    // Just outside 127.0.0.0/8.
    'http://126.255.255.255',
    'http://128.0.0.1',
    // "This host" (RFC 1122 §3.2.1.3) is no loopback address: listening on it listens on every interface.
    'http://0.0.0.0',
    'http://[::]',
    // IPv4-mapped IPv6 (RFC 4291 §2.5.5.2) is left out, as the demo's client leaves it out: whether
    // it reaches this machine depends on the stack (dual-stack sockets, IPV6_V6ONLY), not on the address.
    'http://[::ffff:127.0.0.1]',
    'http://[::ffff:7f00:1]',
    'http://[::2]',
    // Names that only look like loopback ones.
    'http://localhost.attacker.example',
    'http://127.0.0.1.nip.io',
    'http://sub.localhost',
    'http://example.com',
  ])('refuses http on %s', (value) => {
    expect(() => secureUrl(value, 'option')).toThrow(new TypeError(refused(value)));
  });

  it('accepts https anywhere, and refuses credentials on a loopback host too', () => {
    expect(secureUrl('https://128.0.0.1/', 'option').href).toBe('https://128.0.0.1/');
    expect(() => secureUrl('http://user:pw@127.0.0.2/', 'option')).toThrow(new TypeError('option must not carry credentials'));
  });

  it('holds canonicalResource and issuerIdentifier to the same rule', () => {
    expect(canonicalResource('http://127.0.0.2:3000/mcp', 'resource')).toBe('http://127.0.0.2:3000/mcp');
    expect(issuerIdentifier('http://127.255.255.255/oidc', 'issuer')).toBe('http://127.255.255.255/oidc');
    expect(() => canonicalResource('http://128.0.0.1/mcp', 'resource')).toThrow(TypeError);
    expect(() => issuerIdentifier('http://0.0.0.0/oidc', 'issuer')).toThrow(TypeError);
  });
});

// docs/contract.md#protected-resource-metadata: one canonical form per resource, so that what the
// metadata advertises and what a verifier names can be compared as strings.
describe('canonicalResource: one canonical form', () => {
  const spelling = fc.record({
    scheme: fc.constantFrom('https', 'HTTPS', 'Https'),
    host: fc.constantFrom('api.example', 'API.Example', 'xn--bcher-kva.example'),
    port: fc.constantFrom('', ':443', ':8443'),
    path: fc.constantFrom('', '/', '/mcp', '/mcp/', '/a/./b/../c', '/%7Euser'),
    query: fc.constantFrom('', '?', '?x=1', '?x'),
  });

  it('is its own canonical form, and a bare origin has no lone / (an empty query included)', () => {
    fc.assert(
      fc.property(spelling, ({ scheme, host, port, path, query }) => {
        const canonical = canonicalResource(`${scheme}://${host}${port}${path}${query}`, 'resource');
        expect(canonicalResource(canonical, 'resource')).toBe(canonical);
        expect(canonical).not.toMatch(/^https:\/\/[^/]+\/$/);
      }),
    );
  });

  it('keeps an empty query as written: https://api.example? is not https://api.example/', () => {
    expect(canonicalResource('https://api.example?', 'resource')).toBe('https://api.example/?');
    expect(canonicalResource('HTTPS://API.example:443/', 'resource')).toBe('https://api.example');
  });
});
