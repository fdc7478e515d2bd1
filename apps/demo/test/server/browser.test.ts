import { existsSync } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiDocument } from '../../src/api/openapi.js';
import { conformanceDocument } from '../../src/conformance/openapi.js';
import { SERVER_TIMEOUT_MS, startTestDemo, type TestDemo } from '../support/demo-server.js';
import { request } from '../support/http.js';

// Debian's Chromium (scripts/install-chromium.sh installs it); playwright-core downloads nothing.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// Gitignored (test-results/), kept after the run for a human to look at.
const RESULTS = fileURLToPath(new URL('../../test-results/', import.meta.url));
const screenshot = async (page: Page, name: string) => {
  const path = join(RESULTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await access(path);
};

vi.setConfig({ testTimeout: 90_000 });

// On a machine without Chromium the browser tests are skipped with one line saying how to run
// them; under CI (.ci/run installs Chromium first) a missing browser is a failure instead.
const HAS_CHROMIUM = existsSync(CHROMIUM);
const CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
if (!HAS_CHROMIUM && !CI) {
  process.stderr.write(`browser tests skipped: no Chromium at ${CHROMIUM}; run bash apps/demo/scripts/install-chromium.sh to run them\n`);
}

if (!HAS_CHROMIUM && CI) {
  it('has Chromium for the browser tests, under CI', () => {
    expect.fail(`${CHROMIUM} is missing: CI runs the browser tests (bash apps/demo/scripts/install-chromium.sh)`);
  });
}

/** Content-Security-Policy violations any page of the current test reported (Swagger UI's and the authorization server's). */
let violations: string[] = [];

/** A page in a new browser context: its own cookies and storage, like a new browser profile. */
async function freshPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  violations = [];
  context.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return page;
}

/** Executes a GET operation with "Try it out" and returns its live response row. */
async function execute(page: Page, operationId: string): Promise<Locator> {
  const operation = page.locator(`#${operationId}`);
  // deepLinking may have kept the operation open across a reload: open it only when it is shut.
  if (!(await operation.evaluate((element) => element.classList.contains('is-open')))) await operation.locator('.opblock-summary').click();
  const tryOut = operation.locator('button.try-out__btn');
  await tryOut.waitFor();
  if ((await tryOut.innerText()).includes('Try it out')) await tryOut.click();
  await operation.locator('button.execute', { hasText: 'Execute' }).click();
  return operation.locator('.live-responses-table .response');
}

const responseBody = async (live: Locator) => JSON.parse(await live.locator('.response-col_description pre.microlight').first().innerText());

/**
 * Authorize → the authorization-code scheme → the authorization server's pages in the popup
 * (login as `username`, then consent) → back in Swagger UI, authorized.
 */
async function authorizeWithCode(page: Page, username: string, password: string, shots: string): Promise<void> {
  await page.locator('.auth-wrapper .authorize').click();
  const dialog = page.locator('.modal-ux');
  const code = dialog.locator('.auth-container').filter({ hasText: 'DemoAuthorizationCode (OAuth2' });
  await expect.poll(() => code.locator('#client_id_authorizationCode').inputValue()).toBe('swagger-ui');
  await code.getByText('select all').click();
  const popupOpened = page.waitForEvent('popup');
  await code.locator('.auth-btn-wrapper .authorize').click();
  const popup = await popupOpened;
  await popup.locator('#username').waitFor();
  const authorizeUrl = new URL(popup.url());
  expect(authorizeUrl.pathname).toMatch(/^\/interaction\//);
  await screenshot(popup, `${shots}-1-login`);
  await popup.locator('#username').fill(username);
  await popup.locator('#password').fill(password);
  await popup.locator('#login').click();
  await popup.locator('#allow').waitFor();
  await screenshot(popup, `${shots}-2-consent`);
  const closed = popup.waitForEvent('close');
  await popup.locator('#allow').click();
  await closed; // oauth2-redirect.html hands the code to Swagger UI and closes itself
  await code.getByText('Authorized', { exact: true }).waitFor();
  await code.locator('.auth-btn-wrapper button', { hasText: 'Logout' }).waitFor();
  await screenshot(page, `${shots}-3-authorized`);
  await dialog.locator('.btn-done').first().click();
}

/**
 * The demo and Chromium for the suite it is called in: started together before its tests (after
 * `before`), stopped after them. Both settle before a failure is thrown, so whichever did start
 * is stopped.
 */
function demoAndChromium(before?: () => Promise<unknown>): { readonly demo: TestDemo; readonly browser: Browser } {
  const running: { demo?: TestDemo; browser?: Browser } = {};
  beforeAll(async () => {
    await before?.();
    const [server, chrome] = await Promise.allSettled([startTestDemo(), chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS })]);
    if (server.status === 'fulfilled') running.demo = server.value;
    if (chrome.status === 'fulfilled') running.browser = chrome.value;
    for (const result of [server, chrome]) if (result.status === 'rejected') throw result.reason;
  }, SERVER_TIMEOUT_MS);
  afterAll(async () => {
    await running.browser?.close();
    await running.demo?.stop();
  }, SERVER_TIMEOUT_MS);
  return {
    get demo() {
      return running.demo!;
    },
    get browser() {
      return running.browser!;
    },
  };
}

describe.runIf(HAS_CHROMIUM)('Swagger UI at /docs', () => {
  const ui = demoAndChromium(() => mkdir(RESULTS, { recursive: true }));

  it('serves its page, its assets and both documents from this server', async () => {
    const page = await request(`${ui.demo.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.body).toContain('<script src="/docs/swagger-ui-bundle.js"');
    expect(page.body).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-initializer.js', 'oauth2-redirect.html', 'oauth2-redirect.js']) {
      expect((await fetch(`${ui.demo.url}/docs/${asset}`)).status, asset).toBe(200);
    }
    const initializer = await request(`${ui.demo.url}/docs/swagger-initializer.js`);
    expect(initializer.body).toContain('persistAuthorization: true');
    expect(initializer.body).toContain('"usePkceWithAuthorizationCodeGrant":true');
    expect((await request(`${ui.demo.url}/docs/../package.json`)).status).toBe(404);
    expect((await request(`${ui.demo.url}/docs/LICENSE`)).status).toBe(404);
    expect((await fetch(`${ui.demo.url}/`, { redirect: 'manual' })).headers.get('location')).toBe('/docs');
    expect((await request(`${ui.demo.url}/openapi.json`, { method: 'POST' })).status).toBe(405);
    expect((await request(`${ui.demo.url}/nowhere`)).body).toEqual({ message: 'Not found', code: 'NOT_FOUND' });
    expect((await request(`${ui.demo.url}/openapi.json`)).body).toEqual(JSON.parse(JSON.stringify(apiDocument())));
    expect((await request(`${ui.demo.url}/openapi/conformance.json`)).body).toEqual(JSON.parse(JSON.stringify(conformanceDocument())));
  });

  it('authorizes as alice with the password flow, then executes GET /users/me', async () => {
    const page = await freshPage(ui.browser);
    const tokenRequests: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/api/token')) tokenRequests.push(`${req.method()} ${req.headers()['content-type']}`);
    });
    try {
      await page.goto(`${ui.demo.url}/docs`);
      await page.locator('.auth-wrapper .authorize').click();
      const dialog = page.locator('.modal-ux');
      const password = dialog.locator('.auth-container').filter({ hasText: 'DemoPassword (OAuth2' });
      await expect.poll(() => password.locator('#client_id_password').inputValue()).toBe('swagger-ui');
      await password.locator('#oauth_username').fill('alice');
      await password.locator('#oauth_password').fill('wonderland');
      await password.getByText('select all').click();
      await password.locator('.auth-btn-wrapper .authorize').click();
      // Once authorized, the dialog says so and offers Logout in place of Authorize.
      await password.getByText('Authorized', { exact: true }).waitFor();
      await password.locator('.auth-btn-wrapper button', { hasText: 'Logout' }).waitFor();
      await dialog.locator('.btn-done').first().click();
      expect(tokenRequests).toEqual(['POST application/x-www-form-urlencoded']);
      // What Swagger UI keeps for the next visit: the tokens, never the password typed.
      const stored = await page.evaluate(() => localStorage.getItem('authorized'));
      expect(stored).toContain('access_token');
      const kept = JSON.parse(stored!).DemoPassword;
      expect(kept).toMatchObject({ username: 'alice', token: { token_type: 'Bearer' } });
      expect(kept).not.toHaveProperty('password');
      expect(kept).not.toHaveProperty('clientSecret');
      // (The scheme's description, stored with it, names the demo's public credentials.)
      expect(stored!.replace(kept.schema.description, '')).not.toContain('wonderland');

      const live = await execute(page, 'operations-users-users-me');
      await live.locator('.response-col_status').filter({ hasText: '200' }).waitFor();
      expect(await responseBody(live)).toEqual({ username: 'alice', fullName: 'Alice Liddell', email: 'alice@example.com', scopes: ['me', 'items'] });
      await screenshot(page, 'swagger-ui-users-me');
      // The page, its files and Swagger UI's calls all stay within the Content-Security-Policy.
      expect(violations).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('logs alice in at the authorization server (code + PKCE), keeps her across a reload, and lists her items', async () => {
    const page = await freshPage(ui.browser);
    const tokenRequests: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/oidc/token')) tokenRequests.push(req.postData() ?? '');
    });
    try {
      await page.goto(`${ui.demo.url}/docs`);
      await authorizeWithCode(page, 'alice', 'wonderland', 'authorization-code-alice');
      // The code was redeemed with its PKCE verifier, by the public client.
      expect(tokenRequests).toHaveLength(1);
      const form = new URLSearchParams(tokenRequests[0]);
      expect(form.get('grant_type')).toBe('authorization_code');
      expect(form.get('client_id')).toBe('swagger-ui');
      expect(form.get('code_verifier')).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);

      // persistAuthorization: a reload keeps the authorization.
      await page.reload();
      const live = await execute(page, 'operations-users-users-items');
      await live.locator('.response-col_status').filter({ hasText: '200' }).waitFor();
      expect(await responseBody(live)).toEqual([
        { id: 1, title: 'Pocket watch' },
        { id: 2, title: 'Looking glass' },
        { id: 3, title: 'Jar of orange marmalade' },
      ]);
      await screenshot(page, 'authorization-code-alice-4-items-200');
      expect(violations).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('logs alice in from the page opened at localhost, where the authorization server names itself 127.0.0.1', async () => {
    const page = await freshPage(ui.browser);
    const resumes: string[] = [];
    // The popup's requests: the authorization server's pages are opened there.
    page.context().on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/oidc/auth/')) resumes.push(new URL(req.url()).host);
    });
    try {
      const url = new URL(ui.demo.url);
      expect(url.hostname).toBe('127.0.0.1');
      url.hostname = 'localhost';
      await page.goto(`${url.origin}/docs`);
      await authorizeWithCode(page, 'alice', 'wonderland', 'authorization-code-localhost');
      // The authorization resumed on the name the browser used, which its cookies are for.
      expect(resumes.length).toBeGreaterThan(0);
      expect(new Set(resumes)).toEqual(new Set([url.host]));
      const live = await execute(page, 'operations-users-users-items');
      await live.locator('.response-col_status').filter({ hasText: '200' }).waitFor();
      expect((await responseBody(live)).map((item: { title: string }) => item.title)).toEqual(['Pocket watch', 'Looking glass', 'Jar of orange marmalade']);
      expect(violations).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('logs bob in the same way; he lacks `items`, and the page shows the 403 with its insufficient_scope challenge', async () => {
    const page = await freshPage(ui.browser);
    const challenges: (string | null)[] = [];
    page.on('response', async (response) => {
      if (response.url().endsWith('/api/users/me/items')) challenges.push(await response.headerValue('www-authenticate'));
    });
    try {
      await page.goto(`${ui.demo.url}/docs`);
      await authorizeWithCode(page, 'bob', 'builder', 'authorization-code-bob');
      const live = await execute(page, 'operations-users-users-items');
      await live.locator('.response-col_status').filter({ hasText: '403' }).waitFor();
      const headers = await live.locator('.response-col_description .microlight').last().innerText();
      // Swagger UI shows a header's comma-separated parts joined by a bare comma.
      expect(headers).toContain('www-authenticate: Bearer error="insufficient_scope",scope="me items"');
      expect(challenges).toEqual(['Bearer error="insufficient_scope", scope="me items"']);
      expect((await responseBody(live)).code).toBe('FORBIDDEN');
      await screenshot(page, 'authorization-code-bob-4-items-403');
      expect(violations).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('executes "Try it out" on POST /token for a password grant, then a refresh grant with its refresh token', async () => {
    const page: Page = await ui.browser.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await page.goto(`${ui.demo.url}/docs/`);
      const operation = page.locator('#operations-auth-auth-token');
      await operation.locator('.opblock-summary').click();
      await operation.locator('button.try-out__btn', { hasText: 'Try it out' }).click();
      const field = (name: string) => operation.locator(`tr[data-property-name="${name}"]`);
      const execute = async (): Promise<{ status: string; body: any }> => {
        await operation.locator('button.execute').click();
        const live = operation.locator('.live-responses-table .response').first();
        const status = await live.locator('.response-col_status').innerText();
        const body = JSON.parse(await live.locator('.response-col_description pre.microlight').first().innerText());
        return { status: status.trim(), body };
      };

      await field('grant_type').locator('select').selectOption('password');
      await field('username').locator('input[placeholder]').fill('alice');
      await field('password').locator('input[placeholder]').fill('wonderland');
      const login = await execute();
      expect(login.status).toBe('200');
      expect(login.body).toMatchObject({ token_type: 'Bearer', scope: 'me items' });

      await operation.locator('button.btn-clear').click();
      await field('grant_type').locator('select').selectOption('refresh_token');
      await field('username').locator('input[placeholder]').fill('');
      await field('password').locator('input[placeholder]').fill('');
      await field('refresh_token').locator('input[placeholder]').fill(login.body.refresh_token);
      const refreshed = await execute();
      expect(refreshed.status).toBe('200');
      expect(refreshed.body.refresh_token).not.toBe(login.body.refresh_token);
      expect(refreshed.body.scope).toBe('me items');
    } finally {
      await page.close();
    }
  });
});

// A browser's MCP client (the MCP Inspector) on another origin starts its discovery from the
// challenge of a 401 (docs/contract.md#challenges): CORS must let the page read it, and let it
// send `Authorization` at all.
describe.runIf(HAS_CHROMIUM)('the MCP endpoint, from a page on another origin', () => {
  let site: Server | undefined;
  // The page's own origin: `localhost` on a port of its own, where the demo is at 127.0.0.1.
  const ui = demoAndChromium(async () => {
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>MCP client</title>'));
    await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
  });
  // Run before the browser closes (hooks unwind in reverse): its keep-alive connections are cut here.
  afterAll(() => new Promise((resolve) => (site ? (site.close(resolve), site.closeAllConnections()) : resolve(undefined))));

  it("reads the 401's WWW-Authenticate, with no token and with one in Authorization (a preflight then)", async () => {
    const page = await ui.browser.newPage();
    try {
      await page.goto(`http://localhost:${(site!.address() as AddressInfo).port}/`);
      // What a browser's MCP client does first: `initialize`, then discovery from the challenge.
      const post = (url: string, token?: string) =>
        page.evaluate(
          async ([target, bearer]) => {
            try {
              const response = await fetch(target, {
                method: 'POST',
                headers: {
                  'content-type': 'application/json',
                  accept: 'application/json, text/event-stream',
                  'mcp-protocol-version': '2025-06-18',
                  ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
                },
                body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
              });
              return { status: response.status, challenge: response.headers.get('www-authenticate') };
            } catch (error) {
              return { error: String(error) };
            }
          },
          [url, token] as const,
        );
      const metadata = `${ui.demo.url}/.well-known/oauth-protected-resource/mcp`;
      expect(await post(`${ui.demo.url}/mcp`)).toEqual({ status: 401, challenge: `Bearer scope="me", resource_metadata="${metadata}", DPoP scope="me", resource_metadata="${metadata}", algs="ES256 EdDSA Ed25519 PS256 RS256"` });
      expect(await post(`${ui.demo.url}/mcp`, 'not-a-token')).toMatchObject({ status: 401, challenge: expect.stringMatching(/^Bearer error="invalid_token", .*resource_metadata="/) });
    } finally {
      await page.close();
    }
  });
});

// A client that registered itself (RFC 7591) with a loopback redirect URI on the IPv6 address, as
// RFC 8252 §7.3 allows and the registration accepts (apps/demo/README.md): the browser must be let
// follow the pages' form posts there.
describe.runIf(HAS_CHROMIUM)('a client that registered an http://[::1] redirect URI', () => {
  let callback: Server | undefined;
  const landed: URL[] = [];
  const ui = demoAndChromium(async () => {
    callback = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://[::1]');
      // The browser asks for /favicon.ico too, once the page is shown.
      if (url.pathname !== '/cb') return void res.writeHead(404).end();
      landed.push(url);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>signed in</title>');
    });
    await new Promise<void>((resolve) => callback!.listen(0, '::1', resolve));
  });
  afterAll(() => new Promise((resolve) => (callback ? (callback.close(resolve), callback.closeAllConnections()) : resolve(undefined))));

  it('is sent back there with its code once the user has signed in and allowed it', async () => {
    const redirectUri = `http://[::1]:${(callback!.address() as AddressInfo).port}/cb`;
    const registration = await fetch(`${ui.demo.url}/oidc/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'an IPv6 loopback client', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    expect(registration.status).toBe(201);
    const { client_id: clientId } = (await registration.json()) as { client_id: string };
    const authorize = new URL(`${ui.demo.url}/oidc/auth`);
    for (const [name, value] of Object.entries({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'me',
      resource: `${ui.demo.url}/mcp`,
      state: 'the-state',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })) {
      authorize.searchParams.set(name, value);
    }
    const page = await freshPage(ui.browser);
    try {
      await page.goto(authorize.href);
      await page.locator('#username').fill('alice');
      await page.locator('#password').fill('wonderland');
      await page.locator('#login').click();
      await page.locator('#allow').click();
      await page.waitForURL((url) => url.host === new URL(redirectUri).host);
      expect(landed).toHaveLength(1);
      expect(landed[0]!.searchParams.get('state')).toBe('the-state');
      expect(landed[0]!.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(violations).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
