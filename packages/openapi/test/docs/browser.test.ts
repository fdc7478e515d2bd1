/**
 * The served docs in a real browser (Debian's Chromium, driven by playwright-core): what the
 * Authorize dialog keeps in `localStorage` with `persistAuthorization`, and what the page's
 * Content-Security-Policy lets Swagger UI reach (docs/contract.md#openapi).
 *
 * The page is served from 127.0.0.1 and the same server answers as `localhost` too: a second
 * origin, as an identity provider or an API on another host would be. A second server on another
 * port is a third origin, named only by a network-path server URL (`//localhost:…/api`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.js';
import { createDocsHandler } from '../../src/docs/node.js';

const HAS_CHROMIUM = hasChromium('docs browser tests');

vi.setConfig({ testTimeout: 60_000 });

const SECRETS = { basic: 'hunter2-basic', password: 'hunter2-oauth', clientSecret: 's3cret-client' };
const TOKENS = { bearer: 'bearer-token-typed', apiKey: 'api-key-typed', access: 'access-token-issued' };

/** The document, once the port is known: every kind of scheme, and an operation served from the other origin. */
const documentFor = (port: number, otherPort: number) => ({
  openapi: '3.1.0',
  info: { title: 'Browser', version: '1' },
  servers: [{ url: '/' }],
  paths: {
    '/elsewhere': {
      get: {
        operationId: 'elsewhere',
        // Only this operation is served from the other origin: the CSP must allow it all the same.
        servers: [{ url: `http://localhost:${port}/api` }],
        responses: { 200: { description: 'ok' } },
      },
    },
    '/network-path': {
      get: {
        operationId: 'networkPath',
        // A network-path reference to a third origin, named nowhere else: in the page's scheme.
        servers: [{ url: `//localhost:${otherPort}/api` }],
        responses: { 200: { description: 'ok' } },
      },
    },
  },
  components: {
    securitySchemes: {
      basic: { type: 'http', scheme: 'basic' },
      bearer: { type: 'http', scheme: 'bearer' },
      key: { type: 'apiKey', in: 'header', name: 'X-Key' },
      pw: { type: 'oauth2', flows: { password: { tokenUrl: '/token', scopes: { read: 'read' } } } },
      // Discovery on the other origin: blocked by the CSP, the scheme would be missing from the dialog.
      oidc: { type: 'openIdConnect', openIdConnectUrl: `http://localhost:${port}/.well-known/openid-configuration` },
    },
  },
});

/** The identity provider's and the API's answers, readable from the page's origin (CORS). */
function backend(port: number, req: IncomingMessage, res: ServerResponse): void {
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
    'content-type': 'application/json',
  };
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (req.method === 'OPTIONS') res.writeHead(204, cors).end();
  else if (path === '/.well-known/openid-configuration') {
    const issuer = `http://localhost:${port}`;
    res.writeHead(200, cors).end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, grant_types_supported: ['authorization_code'] }));
  } else if (path === '/token') {
    res.writeHead(200, cors).end(JSON.stringify({ access_token: TOKENS.access, token_type: 'Bearer', expires_in: 3600 }));
  } else if (path === '/api/elsewhere' || path === '/api/network-path') res.writeHead(200, cors).end(JSON.stringify({ from: 'elsewhere' }));
  else res.writeHead(404, cors).end('{}');
}

describe.runIf(HAS_CHROMIUM)('Swagger UI served by createDocsHandler, in Chromium', () => {
  let server: Server | undefined;
  let other: Server | undefined;
  let browser: Browser | undefined;
  let origin = '';
  /** Content-Security-Policy violations the current page reported. */
  let violations: string[] = [];

  beforeAll(async () => {
    let docs: ReturnType<typeof createDocsHandler> | undefined;
    let port = 0;
    server = createServer((req, res) => docs?.(req, res) || backend(port, req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
    let otherPort = 0;
    other = createServer((req, res) => backend(otherPort, req, res));
    await new Promise<void>((resolve) => other!.listen(0, '127.0.0.1', resolve));
    otherPort = (other.address() as AddressInfo).port;
    docs = createDocsHandler({ documents: [{ url: '/openapi.json', document: documentFor(port, otherPort) }], persistAuthorization: true, oauth2: { clientId: 'docs' } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
  });

  /** The docs page in a new context (its own localStorage), with the Authorize dialog open. */
  async function openDialog(init?: () => void): Promise<Page> {
    const context = await browser!.newContext();
    violations = [];
    context.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    if (init !== undefined) await context.addInitScript(init);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${origin}/docs`);
    await page.locator('.opblock').first().waitFor();
    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container').first().waitFor();
    return page;
  }

  const stored = (page: Page) => page.evaluate(() => localStorage.getItem('authorized'));

  it('keeps the typed bearer token and API key and the issued token, never a password or client secret', async () => {
    const page = await openDialog();
    const dialog = page.locator('.dialog-ux');
    const basic = dialog.locator('.auth-container', { hasText: '(http, Basic)' });
    await basic.locator('input[type=text]').fill('admin');
    await basic.locator('input[type=password]').fill(SECRETS.basic);
    await basic.locator('button.authorize').click();
    await expect.poll(() => basic.innerText()).toContain('Authorized');
    for (const [title, typed] of [['(http, Bearer)', TOKENS.bearer], ['(apiKey)', TOKENS.apiKey]] as const) {
      const scheme = dialog.locator('.auth-container', { hasText: title });
      await scheme.locator('input').fill(typed);
      await scheme.locator('button.authorize').click();
      await expect.poll(() => stored(page)).toContain(typed);
    }

    const pw = dialog.locator('.auth-container', { hasText: 'pw (OAuth2, password)' });
    await pw.locator('#oauth_username').fill('alice');
    await pw.locator('#oauth_password').fill(SECRETS.password);
    await pw.locator('input[data-name=clientSecret]').fill(SECRETS.clientSecret);
    await pw.locator('button.authorize').click();
    await expect.poll(() => stored(page)).toContain(TOKENS.access);

    const raw = (await stored(page))!;
    for (const secret of Object.values(SECRETS)) expect(raw).not.toContain(secret);
    // btoa('admin:hunter2-basic'): the Basic header Swagger 2's `basic` type would have kept.
    expect(raw).not.toContain(Buffer.from(`admin:${SECRETS.basic}`).toString('base64'));
    const authorized = JSON.parse(raw) as Record<string, Record<string, unknown>>;
    // A username kept without its password would show "Authorized" and send a wrong header.
    expect(Object.keys(authorized).sort()).toEqual(['bearer', 'key', 'pw']);
    expect(authorized.bearer!.value).toBe(TOKENS.bearer);
    expect(authorized.key!.value).toBe(TOKENS.apiKey);
    expect(authorized.pw).toMatchObject({ username: 'alice', clientId: 'docs', token: { access_token: TOKENS.access } });
    expect(authorized.pw).not.toHaveProperty('password');
    expect(authorized.pw).not.toHaveProperty('clientSecret');

    // Still in memory for this page: the Basic credential works until a reload.
    expect(await basic.innerText()).toContain('Authorized');
    // After a reload, the tokens are restored and the Basic scheme asks again.
    await page.reload();
    await page.locator('.opblock').first().waitFor();
    await page.locator('button.authorize').first().click();
    await expect.poll(() => dialog.locator('.auth-container', { hasText: '(http, Bearer)' }).innerText()).toContain('Authorized');
    expect(await basic.locator('input[type=password]').count()).toBe(1);
    expect(violations).toEqual([]);
  });

  it('removes, on load, a password an older page stored', async () => {
    const page = await openDialog(() => {
      // Only before Swagger UI's first run: the reload below must see what the plugin left.
      if (sessionStorage.getItem('seeded') !== null) return;
      sessionStorage.setItem('seeded', '1');
      localStorage.setItem(
        'authorized',
        JSON.stringify({
          basic: { name: 'basic', schema: { type: 'http', scheme: 'basic' }, value: { username: 'admin', password: 'old-basic' } },
          pw: { name: 'pw', schema: { type: 'oauth2', flow: 'password' }, username: 'alice', password: 'old-pw', clientSecret: 'old-secret', token: { access_token: 'old-token' } },
        }),
      );
    });
    const raw = (await stored(page))!;
    expect(raw).not.toMatch(/old-basic|old-pw|old-secret/);
    expect(JSON.parse(raw)).toEqual({ pw: { name: 'pw', schema: { type: 'oauth2', flow: 'password' }, username: 'alice', token: { access_token: 'old-token' } } });
  });

  it('lists an OpenID Connect scheme whose discovery is on another origin, and tries out an operation served there, with no CSP violation', async () => {
    const page = await openDialog();
    const oidc = page.locator('.auth-container', { hasText: 'oidc (OAuth2, authorization_code with PKCE)' });
    await expect.poll(() => oidc.count()).toBe(1);
    expect(await oidc.innerText()).toContain(`Authorization URL: ${origin.replace('127.0.0.1', 'localhost')}/authorize`);
    await page.locator('.dialog-ux button.btn-done').first().click();

    const operation = page.locator('#operations-default-elsewhere');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const live = operation.locator('.live-responses-table .response');
    await live.waitFor();
    expect(await live.locator('.response-col_status').innerText()).toBe('200');
    expect(violations).toEqual([]);
  });

  it('tries out an operation whose server is a network-path reference to the other origin, with no CSP violation', async () => {
    const page = await openDialog();
    await page.locator('.dialog-ux button.btn-done').first().click();
    const operation = page.locator('#operations-default-networkPath');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const live = operation.locator('.live-responses-table .response');
    await live.waitFor();
    expect(await live.locator('.response-col_status').innerText()).toBe('200');
    expect(violations).toEqual([]);
  });
});
