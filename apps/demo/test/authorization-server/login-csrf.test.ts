/**
 * Login CSRF at the authorization server's sign-in and consent forms: a page of another origin
 * (another port of 127.0.0.1, the same site, so the interaction's `SameSite=Lax` cookie rides
 * along) posting its own credentials into the victim's interaction is refused with 403 in a real
 * browser (Chromium), and the interaction still asks the victim to sign in; the page's own form
 * still signs in. Over plain HTTP, every `Origin` / `Sec-Fetch-Site` a request can carry is
 * refused unless it names this origin.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CookieSession, pkcePair, swaggerAuthorizeUrl } from '../support/authorization-code.js';
import { SERVER_TIMEOUT_MS, startTestDemo, type TestDemo } from '../support/demo-server.js';

// Debian's Chromium (scripts/install-chromium.sh installs it), launched as the demo's browser tests launch it.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const HAS_CHROMIUM = existsSync(CHROMIUM);
const CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
if (!HAS_CHROMIUM && !CI) process.stderr.write(`browser tests skipped: no Chromium at ${CHROMIUM}; run bash apps/demo/scripts/install-chromium.sh to run them\n`);

vi.setConfig({ testTimeout: 90_000 });

let demo: TestDemo;
let browser: Browser | undefined;
/** The attacker's site: another port of 127.0.0.1, its page the body it is told to serve. */
let attacker: Server;
let attackerUrl: string;
let attackerPage = '';

beforeAll(async () => {
  attacker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(attackerPage));
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  const [server, chrome] = await Promise.allSettled([startTestDemo(), HAS_CHROMIUM ? chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS }) : undefined]);
  if (server.status === 'fulfilled') demo = server.value;
  if (chrome.status === 'fulfilled') browser = chrome.value;
  for (const result of [server, chrome]) if (result.status === 'rejected') throw result.reason;
}, SERVER_TIMEOUT_MS);
afterAll(async () => {
  await browser?.close();
  attacker.closeAllConnections();
  await new Promise((resolve) => attacker.close(resolve));
  await demo?.stop();
}, SERVER_TIMEOUT_MS);

/** The victim's browser at the sign-in page of a new interaction: the page, and the interaction's uid. */
async function signInPage(): Promise<{ page: Page; uid: string }> {
  const page = await (await browser!.newContext()).newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(swaggerAuthorizeUrl(demo.url, pkcePair().challenge, 'me items'));
  await page.locator('input[name="username"]').waitFor();
  const uid = new URL(page.url()).pathname.split('/')[2]!;
  expect(page.url()).toBe(`${demo.url}/interaction/${uid}`);
  return { page, uid };
}

/** The attacker's page: a form that posts `fields` to `action` as soon as it loads. */
const autoPost = (action: string, fields: Record<string, string>) =>
  `<!DOCTYPE html><html><body><form method="post" action="${action}">${Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
    .join('')}</form><script>document.forms[0].submit()</script></body></html>`;

describe.skipIf(!HAS_CHROMIUM && !CI)('the sign-in form, posted from another origin in a real browser', () => {
  it('is refused with 403, and the victim is still asked to sign in; the page itself still signs in', async () => {
    const { page, uid } = await signInPage();
    attackerPage = autoPost(`${demo.url}/interaction/${uid}/login`, { username: 'bob', password: 'builder' });
    const posted = page.waitForResponse((response) => response.request().method() === 'POST' && response.url() === `${demo.url}/interaction/${uid}/login`);
    await page.goto(attackerUrl);
    const answer = await posted;
    // What the browser sent: the cookie of the interaction (same site) and where the form came from.
    const sent = await answer.request().allHeaders();
    expect({ site: sent['sec-fetch-site'], origin: sent.origin, cookie: /_interaction=/.test(sent.cookie ?? '') }).toEqual({ site: 'same-site', origin: attackerUrl, cookie: true });
    expect(answer.status()).toBe(403);
    await expect(page.locator('body').innerText()).resolves.toContain('This form was not sent from its own page');

    // Nothing was signed in: the interaction still asks for a login, which the victim's own form does.
    await page.goto(`${demo.url}/interaction/${uid}`);
    await page.locator('input[name="username"]').fill('alice');
    await page.locator('input[name="password"]').fill('wonderland');
    await page.locator('button[type="submit"]').first().click();
    // Signed in as alice, not bob: the consent page names her.
    await page.locator('h1', { hasText: 'Allow access?' }).waitFor();
    await expect(page.locator('p', { hasText: 'Logged in as' }).innerText()).resolves.toContain('Logged in as alice.');
    await page.context().close();
  });

  it('the consent form, posted from another origin, is refused with 403', async () => {
    const { page, uid } = await signInPage();
    await page.locator('input[name="username"]').fill('alice');
    await page.locator('input[name="password"]').fill('wonderland');
    await page.locator('button[type="submit"]').first().click();
    await page.locator('h1', { hasText: 'Allow access?' }).waitFor();
    const consentUid = new URL(page.url()).pathname.split('/')[2]!;
    attackerPage = autoPost(`${demo.url}/interaction/${consentUid}/consent`, {});
    const posted = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/consent'));
    await page.goto(attackerUrl);
    expect((await posted).status()).toBe(403);
    // The consent is still the victim's to give: the interaction asks for it.
    await page.goto(`${demo.url}/interaction/${consentUid}`);
    await page.locator('h1', { hasText: 'Allow access?' }).waitFor();
    expect(consentUid).not.toBe('');
    expect(uid).not.toBe('');
    await page.context().close();
  });
});

describe('an interaction post over HTTP', () => {
  const hostOf = () => new URL(demo.url).host;
  /** A fresh interaction at its sign-in page, by plain HTTP with its cookies. */
  const interaction = async () => {
    const session = new CookieSession();
    const page = await session.follow(swaggerAuthorizeUrl(demo.url, pkcePair().challenge));
    const uid = new URL(page.url).pathname.split('/')[2]!;
    return { session, uid };
  };
  const post = (session: CookieSession, uid: string, headers: Record<string, string>) =>
    session.fetch(`${demo.url}/interaction/${uid}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ username: 'nobody', password: 'wrong' }).toString(),
      redirect: 'manual',
    });

  it('is refused with 403 whenever the browser says it came from elsewhere, and read when it came from its own page', async () => {
    const { session, uid } = await interaction();
    const elsewhere = fc.oneof(
      fc.record({ 'sec-fetch-site': fc.constantFrom('same-site', 'cross-site', 'none') }, { requiredKeys: ['sec-fetch-site'] }),
      fc.record({ origin: fc.oneof(fc.constant('null'), fc.webUrl().map((url) => new URL(url).origin).filter((origin) => origin !== demo.url && origin !== 'null')) }),
      fc.record({ 'sec-fetch-site': fc.constantFrom('same-site', 'cross-site'), origin: fc.constant(demo.url) }),
    );
    await fc.assert(
      fc.asyncProperty(elsewhere, async (headers) => {
        const answer = await post(session, uid, headers);
        expect(answer.status).toBe(403);
      }),
      { numRuns: 40 },
    );
    // From its own page: the form is read (a wrong password is a 401 on the same page).
    const ownPage: Record<string, string>[] = [{ 'sec-fetch-site': 'same-origin', origin: demo.url }, { origin: `http://${hostOf()}` }, {}];
    for (const headers of ownPage) {
      expect((await post(session, uid, headers)).status).toBe(401);
    }
  });
});
