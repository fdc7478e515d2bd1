import { existsSync } from 'node:fs';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
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
const SCREENSHOT = fileURLToPath(new URL('../../test-results/swagger-ui-users-me.png', import.meta.url));

vi.setConfig({ testTimeout: 60_000 });

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

describe.runIf(HAS_CHROMIUM)('Swagger UI at /docs', () => {
  let demo: TestDemo;
  let browser: BrowserContext;
  let profile: string;
  beforeAll(async () => {
    profile = await mkdtemp(join(tmpdir(), 'trpc-oauth2-chromium-'));
    // Both settle before any failure is thrown, so afterAll stops whichever did start.
    const [server, chrome] = await Promise.allSettled([
      startTestDemo(),
      // A new, empty profile directory: nothing from an earlier run (cookies, stored auth) leaks in.
      chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_FLAGS }),
    ]);
    if (server.status === 'fulfilled') demo = server.value;
    if (chrome.status === 'fulfilled') browser = chrome.value;
    for (const result of [server, chrome]) if (result.status === 'rejected') throw result.reason;
  }, SERVER_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    if (profile) await rm(profile, { recursive: true, force: true });
  }, SERVER_TIMEOUT_MS);

  it('serves its page, its assets and both documents from this server', async () => {
    const page = await request(`${demo.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.body).toContain('<script src="/docs/swagger-ui-bundle.js"');
    expect(page.body).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-initializer.js', 'oauth2-redirect.html']) {
      expect((await fetch(`${demo.url}/docs/${asset}`)).status, asset).toBe(200);
    }
    expect((await request(`${demo.url}/docs/../package.json`)).status).toBe(404);
    expect((await request(`${demo.url}/docs/LICENSE`)).status).toBe(404);
    expect((await fetch(`${demo.url}/`, { redirect: 'manual' })).headers.get('location')).toBe('/docs');
    expect((await request(`${demo.url}/openapi.json`, { method: 'POST' })).status).toBe(405);
    expect((await request(`${demo.url}/nowhere`)).body).toEqual({ message: 'Not found', code: 'NOT_FOUND' });
    expect((await request(`${demo.url}/openapi.json`)).body).toEqual(JSON.parse(JSON.stringify(apiDocument())));
    expect((await request(`${demo.url}/openapi/conformance.json`)).body).toEqual(JSON.parse(JSON.stringify(conformanceDocument())));
  });

  it('authorizes as alice with the password flow, then executes GET /users/me', async () => {
    const page: Page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    const tokenRequests: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/api/token')) tokenRequests.push(`${req.method()} ${req.headers()['content-type']}`);
    });
    try {
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      await page.goto(`${demo.url}/docs`);
      await page.locator('.auth-wrapper .authorize').click();
      const dialog = page.locator('.modal-ux');
      await expect.poll(() => dialog.locator('#client_id_password').inputValue()).toBe('swagger-ui');
      await dialog.locator('#oauth_username').fill('alice');
      await dialog.locator('#oauth_password').fill('wonderland');
      await dialog.getByText('select all').click();
      await dialog.locator('.auth-btn-wrapper .authorize').click();
      // Once authorized, the dialog says so and offers Logout in place of Authorize.
      await dialog.getByText('Authorized', { exact: true }).waitFor();
      await dialog.locator('.auth-btn-wrapper button', { hasText: 'Logout' }).waitFor();
      await dialog.locator('.auth-btn-wrapper .btn-done').click();
      expect(tokenRequests).toEqual(['POST application/x-www-form-urlencoded']);

      const operation = page.locator('#operations-users-users-me');
      await operation.locator('.opblock-summary').click();
      await operation.locator('button.try-out__btn', { hasText: 'Try it out' }).click();
      await operation.locator('button.execute', { hasText: 'Execute' }).click();
      const live = operation.locator('.live-responses-table .response');
      await live.locator('.response-col_status').filter({ hasText: '200' }).waitFor();
      const body = JSON.parse(await live.locator('.response-col_description pre.microlight').first().innerText());
      expect(body).toEqual({ username: 'alice', fullName: 'Alice Liddell', email: 'alice@example.com', scopes: ['me', 'items'] });

      // The page, its files and Swagger UI's calls all stay within the Content-Security-Policy.
      expect(violations).toEqual([]);
      await mkdir(join(SCREENSHOT, '..'), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      await access(SCREENSHOT);
    } finally {
      await page.close();
    }
  });

  it('executes "Try it out" on POST /token for a password grant, then a refresh grant with its refresh token', async () => {
    const page: Page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await page.goto(`${demo.url}/docs/`);
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
