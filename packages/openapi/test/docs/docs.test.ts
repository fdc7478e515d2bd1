/**
 * The served docs, on both adapters over loopback: node:http (`createDocsHandler`) and a Fetch
 * server (`createDocsFetchHandler` under @hono/node-server), answer the same routes with the same
 * safe headers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '@trpc-oauth2/test-kit';
import { createDocsFetchHandler } from '../../src/docs/index.js';
import { createDocsHandler, swaggerUiAssets } from '../../src/docs/node.js';
import { docsRoutes, type DocsOptions } from '../../src/docs/swagger-ui.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'API </script><script>alert(1)</script>', version: '1' },
  servers: [{ url: 'https://api.example.com/v1' }],
  paths: {},
  components: {
    securitySchemes: {
      Code: {
        type: 'oauth2',
        flows: { authorizationCode: { authorizationUrl: 'https://login.example.com/authorize', tokenUrl: 'https://login.example.com/token', scopes: {} } },
      },
    },
  },
};
const OPTIONS: DocsOptions = {
  documents: [
    { url: '/openapi.json', document },
    { name: 'Other', url: '/other.json', document: { openapi: '3.1.0', info: { title: 'Other', version: '1' }, paths: {} } },
  ],
  oauth2: { clientId: 'swagger-ui' },
};

const listen = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));

const faces: Record<string, { origin: string; close: () => Promise<void> }> = {};

beforeAll(async () => {
  const docs = createDocsHandler(OPTIONS);
  const node = createServer((req, res) => docs(req, res, () => res.writeHead(418).end('next')));
  faces.node = { origin: await listen(node), close: () => new Promise((resolve) => node.close(() => resolve())) };
  const handle = createDocsFetchHandler({ ...OPTIONS, assets: swaggerUiAssets() });
  const fetchServer = serve({ fetch: async (req) => (await handle(req)) ?? new Response('next', { status: 418 }), port: 0, hostname: '127.0.0.1' }) as Server;
  await new Promise((resolve) => fetchServer.once('listening', resolve));
  faces.fetch = {
    origin: `http://127.0.0.1:${(fetchServer.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => fetchServer.close(() => resolve())),
  };
});
afterAll(async () => {
  for (const face of Object.values(faces)) await face.close();
});

describe.each(['node', 'fetch'])('the docs on the %s adapter', (name) => {
  const url = (path: string) => `${faces[name]!.origin}${path}`;

  it('serves the page at /docs and /docs/ with every safe header', async () => {
    for (const path of ['/docs', '/docs/']) {
      const page = await fetch(url(path));
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      const csp = page.headers.get('content-security-policy')!;
      expect(csp.split('; ')).toEqual(
        expect.arrayContaining(["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "connect-src 'self' https://api.example.com https://login.example.com"]),
      );
      const html = await page.text();
      expect(html).toContain('<script src="/docs/swagger-ui-bundle.js"');
      expect(html).not.toMatch(/https?:\/\//); // no CDN
      expect(html).not.toContain('<script>alert(1)'); // the title is escaped
    }
  });

  it('configures Swagger UI: both documents, PKCE, the redirect page, no validator badge, and persists nothing by default', async () => {
    const script = await (await fetch(url('/docs/swagger-initializer.js'))).text();
    expect(script).toContain('"url":"/openapi.json"');
    expect(script).toContain('"name":"Other","url":"/other.json"');
    expect(script).toContain('persistAuthorization: false');
    expect(script).not.toContain('WithoutSecrets');
    expect(script).toContain('validatorUrl: null');
    expect(script).toContain('"/docs/oauth2-redirect.html"');
    expect(script).toContain('initOAuth({"clientId":"swagger-ui","usePkceWithAuthorizationCodeGrant":true})');
    expect(script).not.toContain('</script>'); // the title inside JSON cannot end a script
  });

  it('persists the authorization when the application asks, with the plugin that removes passwords and client secrets', () => {
    const route = docsRoutes({ documents: [{ url: '/openapi.json', document: {} }], persistAuthorization: true });
    const body = route('GET', '/docs/swagger-initializer.js')?.body;
    const script = body !== null && body !== undefined && 'text' in body ? body.text : '';
    expect(script).toContain('persistAuthorization: true');
    expect(script).toContain('plugins: [SwaggerUIBundle.plugins.DownloadUrl, WithoutSecrets]');
    expect(script).toContain('delete auth.password;');
    expect(script).toContain('delete auth.clientSecret;');
    // It is a script the browser can run.
    expect(() => new Function(script)).not.toThrow();
  });

  it('serves the files of swagger-ui-dist and the OAuth2 redirect page, nothing else', async () => {
    for (const [file, type] of [
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['oauth2-redirect.html', 'text/html; charset=utf-8'],
      ['oauth2-redirect.js', 'text/javascript; charset=utf-8'],
    ]) {
      const response = await fetch(url(`/docs/${file}`));
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type'), file).toBe(type);
      expect(response.headers.get('content-security-policy'), file).toContain("frame-ancestors 'none'");
      expect((await response.arrayBuffer()).byteLength, file).toBeGreaterThan(100);
    }
    for (const path of ['/docs/package.json', '/docs/index.js', '/docs/%2e%2e/package.json', '/elsewhere']) {
      const response = await fetch(url(path));
      expect(response.status, path).toBe(418); // not the docs': handed on
    }
  });

  it.each(['/docs/./', '/x/../docs/swagger-initializer.js', '/docs/%2e/index.html', '/docs/x/%2e%2e/swagger-initializer.js'])(
    'serves %s, sent as it is, as the path a URL makes of it',
    async (path) => {
      // Written byte for byte: fetch would resolve the dot segments before sending.
      const { status } = await rawRequest(faces[name]!.origin, { path });
      expect(status, path).toBe(200);
    },
  );

  it('serves each document as JSON', async () => {
    const response = await fetch(url('/openapi.json'));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(document);
  });

  it('answers HEAD without a body and other methods with 405 and Allow', async () => {
    const head = await fetch(url('/docs'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(url('/openapi.json'), { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toEqual({ message: 'Method not allowed', code: 'METHOD_NOT_SUPPORTED' });
  });
});

describe('the docs elsewhere than /docs', () => {
  it('serve the page and its files under the path given', async () => {
    const handle = createDocsFetchHandler({ ...OPTIONS, path: '/reference/', assets: async () => null });
    const page = await handle(new Request('http://h/reference'));
    expect(await page!.text()).toContain('<script src="/reference/swagger-ui-bundle.js"');
    expect(await handle(new Request('http://h/docs'))).toBeUndefined();
    // A file the asset loader cannot find is a 404, with the safe headers.
    const missing = await handle(new Request('http://h/reference/swagger-ui.css'));
    expect(missing!.status).toBe(404);
    expect(missing!.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
