/**
 * The docs' Content-Security-Policy `connect-src`: every origin Swagger UI is sent to by the
 * documents (servers at every level, token, refresh and OpenID Connect discovery URLs), plus the
 * application's `connectOrigins`, and nothing else (docs/contract.md#openapi).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDocsFetchHandler, docsSecurityHeaders } from '../../src/docs/index.js';
import { createDocsHandler } from '../../src/docs/node.js';
import { docsRoutes, type DocsOptions } from '../../src/docs/swagger-ui.js';

/** The sources of `connect-src` the docs page is served with, for one document. */
function connectSrc(document: object, options: Partial<DocsOptions> = {}): string[] {
  const answer = docsRoutes({ documents: [{ url: '/openapi.json', document }], ...options })('GET', '/docs')!;
  const directive = answer.headers['content-security-policy']!.split('; ').find((part) => part.startsWith('connect-src '))!;
  return directive.split(' ').slice(1);
}

const base = { openapi: '3.1.0', info: { title: 'T', version: '1' } };

describe('connect-src', () => {
  it("is 'self' alone for a document with relative URLs only", () => {
    const document = {
      ...base,
      servers: [{ url: '/api' }],
      paths: { '/x': { servers: [{ url: '/v2' }], get: { servers: [{ url: '../v3' }], responses: {} } } },
      components: { securitySchemes: { pw: { type: 'oauth2', flows: { password: { tokenUrl: '/token', scopes: {} } } }, oidc: { type: 'openIdConnect', openIdConnectUrl: '/.well-known/openid-configuration' } } },
    };
    expect(connectSrc(document)).toEqual(["'self'"]);
  });

  it("adds an OpenID Connect scheme's discovery URL, without which the scheme is missing from the Authorize dialog", () => {
    const document = { ...base, paths: {}, components: { securitySchemes: { oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://id.example.com/realms/x/.well-known/openid-configuration' } } } };
    expect(connectSrc(document)).toEqual(["'self'", 'https://id.example.com']);
  });

  it("adds the OAuth2 flows' token and refresh URLs, not their authorization URLs (a popup)", () => {
    const flows = { authorizationCode: { authorizationUrl: 'https://login.example.com/authorize', tokenUrl: 'https://token.example.com/token', refreshUrl: 'https://refresh.example.com/r', scopes: {} } };
    expect(connectSrc({ ...base, paths: {}, components: { securitySchemes: { code: { type: 'oauth2', flows } } } })).toEqual(["'self'", 'https://token.example.com', 'https://refresh.example.com']);
  });

  it('adds the servers of each path and of each operation, not only the top-level ones', () => {
    const document = {
      ...base,
      servers: [{ url: 'https://api.example.com/v1' }],
      paths: {
        '/files': {
          servers: [{ url: 'https://files.example.com' }],
          parameters: [{ name: 'x', in: 'query', schema: { type: 'string' } }],
          get: { servers: [{ url: 'https://cdn.example.com/files' }], responses: {} },
          post: { servers: [{ url: 'http://upload.example.com:8080/' }, { url: 'https://api.example.com/v2' }], responses: {} },
        },
        '/other': { get: { responses: {} } },
      },
    };
    const before = JSON.stringify(document);
    expect(connectSrc(document)).toEqual(["'self'", 'https://api.example.com', 'https://files.example.com', 'https://cdn.example.com', 'http://upload.example.com:8080']);
    expect(JSON.stringify(document)).toBe(before); // the document is only read
  });

  it("fills a templated server URL with each value Swagger UI's server menu offers: the default and the enum", () => {
    const servers = [
      { url: 'https://{region}.api.example.com:{port}/v1', variables: { region: { default: 'eu', enum: ['eu', 'us'] }, port: { default: '443' } } },
      { url: 'https://{tenant}.example.org', variables: { tenant: { default: 'acme' } } },
    ];
    expect(connectSrc({ ...base, servers, paths: {} })).toEqual(["'self'", 'https://eu.api.example.com', 'https://us.api.example.com', 'https://acme.example.org']);
  });

  it('skips a templated server URL with a variable it cannot fill: undeclared, or with no string value', () => {
    const servers = [
      { url: 'https://{undeclared}.example.com' },
      { url: 'https://{numeric}.example.com', variables: { numeric: { default: 1 } } },
      { url: 'https://{host}', variables: { host: { default: 'kept.example.com' } } },
    ];
    expect(connectSrc({ ...base, servers, paths: {} })).toEqual(["'self'", 'https://kept.example.com']);
  });

  it('fills a server whose variables offer too many combinations with the defaults only', () => {
    const values = Array.from({ length: 9 }, (_, i) => `v${i}`);
    const variables = { a: { default: 'v0', enum: values }, b: { default: 'v1', enum: values } };
    expect(connectSrc({ ...base, servers: [{ url: 'https://{a}-{b}.example.com', variables }], paths: {} })).toEqual(["'self'", 'https://v0-v1.example.com']);
  });

  it('leaves out a server whose host is a wildcard, which would allow every host it matches', () => {
    const servers = [{ url: 'https://*.example.com' }, { url: 'https://{v}.example.com', variables: { v: { default: '*' } } }, { url: 'https://kept.example.com' }];
    expect(connectSrc({ ...base, servers, paths: {} })).toEqual(["'self'", 'https://kept.example.com']);
  });

  it('ignores what no browser could call, and a value that would end the directive', () => {
    const servers = [{ url: 'ftp://files.example.com' }, { url: 'https://x; script-src *' }, { url: 42 }, null, { url: 'https://{v}.example.com', variables: { v: { default: 'a b' } } }];
    expect(connectSrc({ ...base, servers, paths: { '/x': null, '/y': { get: null } }, components: { securitySchemes: { broken: null } } })).toEqual(["'self'"]);
  });
});

describe('connectOrigins', () => {
  it('adds the origins given, normalized and without duplicates, for what is known only at runtime (a discovered token endpoint)', () => {
    const document = { ...base, servers: [{ url: 'https://api.example.com' }], paths: {} };
    expect(connectSrc(document, { connectOrigins: ['https://Token.Example.com/', 'https://api.example.com', 'http://localhost:8080'] })).toEqual([
      "'self'",
      'https://api.example.com',
      'https://token.example.com',
      'http://localhost:8080',
    ]);
  });

  it.each([
    'https://token.example.com/oauth/token',
    'https://token.example.com?x',
    'https://token.example.com/#frag',
    'https://user:pass@token.example.com',
    'https://*.example.com',
    '*',
    "'unsafe-inline'",
    'https://a.example.com https://b.example.com',
    'https://a.example.com; script-src *',
    'ftp://files.example.com',
    'data:',
    'token.example.com',
  ])('refuses %j, which is not an http(s) origin, when the handler is created', (origin) => {
    const options = { documents: [{ url: '/openapi.json', document: { ...base, paths: {} } }], connectOrigins: [origin] } as const;
    expect(() => docsRoutes(options)).toThrow(TypeError);
    expect(() => createDocsHandler(options)).toThrow(/connectOrigins: .* is not an http\(s\) origin/);
    expect(() => createDocsFetchHandler({ ...options, assets: async () => null })).toThrow(TypeError);
  });

  it.each(["https://a.example.com; script-src *", '*', "'unsafe-eval'", 'https://a.example.com/path'])(
    'is checked in docsSecurityHeaders too, which refuses %j with a TypeError naming it',
    (origin) => {
      expect(() => docsSecurityHeaders([origin])).toThrow(/docsSecurityHeaders: .* is not an http\(s\) origin/);
    },
  );

  it('docsSecurityHeaders names the origins given, normalized, once each', () => {
    const directive = docsSecurityHeaders(['https://Auth.Example.com/', 'https://auth.example.com'])['content-security-policy']!.split('; ').find((part) => part.startsWith('connect-src '));
    expect(directive).toBe("connect-src 'self' https://auth.example.com");
  });

  it('sends the same policy on every docs answer', async () => {
    const handle = createDocsFetchHandler({ documents: [{ url: '/openapi.json', document: { ...base, paths: {} } }], connectOrigins: ['https://token.example.com'], assets: async () => 'x' });
    for (const path of ['/docs', '/docs/swagger-initializer.js', '/docs/swagger-ui.css', '/openapi.json']) {
      const response = await handle(new Request(`http://h${path}`));
      expect(response!.headers.get('content-security-policy'), path).toContain("connect-src 'self' https://token.example.com;");
    }
  });
});

/**
 * A host the URL parser accepts may still hold `;` (which ends a directive), `,` (which starts
 * another policy) or `'`: none is a CSP host character, so such an origin is refused as an
 * option and skipped in a document, and the policy keeps its nine directives whatever it is
 * given (docs/contract.md#openapi).
 */
describe('origins whose host would break the policy', () => {
  const DIRECTIVES = ['default-src', 'script-src', 'style-src', 'img-src', 'font-src', 'connect-src', 'base-uri', 'form-action', 'frame-ancestors'];
  /** CSP's host-source: a scheme, host characters (letters, digits, `-`, `.`), an optional port. */
  const HOST_SOURCE = /^https?:\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d+)?$/;
  const policyOf = (headers: Record<string, string>) => headers['content-security-policy']!;
  const wellFormed = (policy: string) => {
    expect(policy).not.toContain(',');
    const directives = policy.split('; ');
    expect(directives.map((directive) => directive.split(' ')[0])).toEqual(DIRECTIVES);
    const sources = directives.find((directive) => directive.startsWith('connect-src '))!.split(' ').slice(2);
    for (const source of sources) expect(source).toMatch(HOST_SOURCE);
  };

  it.each(['https://a.example.com;sandbox', 'https://a.example.com;', 'https://a.example.com,b.example.com', "https://a.example.com'self'", 'https://a%3Bsandbox.example.com'])(
    'refuses %j as connectOrigins and in docsSecurityHeaders with a TypeError',
    (origin) => {
      const options = { documents: [{ url: '/openapi.json', document: { ...base, paths: {} } }], connectOrigins: [origin] } as const;
      expect(() => docsRoutes(options)).toThrow(/connectOrigins: .* is not an http\(s\) origin/);
      expect(() => docsSecurityHeaders([origin])).toThrow(/docsSecurityHeaders: .* is not an http\(s\) origin/);
    },
  );

  it('skips a document server or token URL whose host holds `;` or `,`, which would add a `sandbox` directive or a second policy', async () => {
    const document = {
      ...base,
      servers: [{ url: 'https://api.example.com;sandbox' }, { url: 'https://kept.example.com' }],
      paths: {},
      components: { securitySchemes: { pw: { type: 'oauth2', flows: { password: { tokenUrl: 'https://t.example.com,x/token', scopes: {} } } } } },
    };
    expect(connectSrc(document)).toEqual(["'self'", 'https://kept.example.com']);
    const response = await createDocsFetchHandler({ documents: [{ url: '/openapi.json', document }], assets: async () => null })(new Request('http://h/docs'));
    wellFormed(response!.headers.get('content-security-policy')!);
  });

  it('keeps its nine directives and host sources for any origin it accepts (property)', () => {
    const hostChar = fc.constantFrom(...'abz09-.;,\'"*!$&()+=_~% '.split(''));
    const origin = fc.tuple(fc.constantFrom('http://', 'https://', 'HTTPS://'), fc.string({ unit: hostChar, minLength: 1, maxLength: 12 }), fc.constantFrom('', ':8080', '/', '/x'));
    fc.assert(
      fc.property(fc.array(origin, { maxLength: 3 }), (parts) => {
        const origins = parts.map((part) => part.join(''));
        let headers: Record<string, string>;
        try {
          headers = docsSecurityHeaders(origins);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          return;
        }
        wellFormed(policyOf(headers));
        const document = { ...base, servers: origins.map((url) => ({ url })), paths: {} };
        wellFormed(policyOf(docsRoutes({ documents: [{ url: '/openapi.json', document }] })('GET', '/docs')!.headers));
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * A network-path reference (`//api.example.com/v1`) is relative to the page's scheme only: Swagger
 * UI resolves it against the document's URL, to another host. Its host is in `connect-src`
 * without a scheme, which CSP matches in the page's (docs/contract.md#openapi).
 */
describe('network-path references', () => {
  it('names the host of a `//host` server, token URL or discovery URL, without a scheme', () => {
    const document = {
      ...base,
      servers: [{ url: '//api.example.com/v1' }, { url: '//{region}.example.com', variables: { region: { default: 'eu' } } }],
      paths: { '/x': { get: { servers: [{ url: '//ops.example.com:8443/' }], responses: {} } } },
      components: {
        securitySchemes: {
          pw: { type: 'oauth2', flows: { password: { tokenUrl: '//auth.example.com/token', scopes: {} } } },
          oidc: { type: 'openIdConnect', openIdConnectUrl: '//id.example.com/.well-known/openid-configuration' },
        },
      },
    };
    expect(connectSrc(document)).toEqual(["'self'", 'api.example.com', 'eu.example.com', 'ops.example.com:8443', 'auth.example.com', 'id.example.com']);
  });

  it('keeps the port it is written with, a default port of either scheme included', () => {
    const servers = [{ url: '//a.example.com:443/v1' }, { url: '//b.example.com:80/v1' }, { url: '//c.example.com:8080' }, { url: '//[::1]:443/x' }, { url: '//d.example.com' }];
    expect(connectSrc({ ...base, servers, paths: {} })).toEqual(["'self'", 'a.example.com:443', 'b.example.com:80', 'c.example.com:8080', '[::1]:443', 'd.example.com']);
  });

  it('skips one whose host a CSP source cannot name, as for absolute URLs', () => {
    const servers = [{ url: '//*.example.com' }, { url: '//a.example.com;sandbox/v1' }, { url: "//a.example.com'/v1" }];
    expect(connectSrc({ ...base, servers, paths: {} })).toEqual(["'self'"]);
  });
});
