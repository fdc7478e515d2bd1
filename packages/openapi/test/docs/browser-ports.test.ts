/**
 * What the docs page's Content-Security-Policy lets a real browser (Debian's Chromium, driven by
 * playwright-core) reach for a network-path server written with a scheme's default port
 * (`//localhost:443/api`, `//localhost:80/api`): exactly the origin Swagger UI resolves it to
 * from the page, and not the other port of the same host (docs/contract.md#openapi).
 *
 * The page is served over `http:` from 127.0.0.1; the requests go to `localhost`, where nothing
 * need listen: what is checked is whether the policy refuses them (a `securitypolicyviolation`),
 * which the browser decides before it connects.
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closing, servingOnLoopback } from '@trpc-oauth2/test-kit';
import { hasChromium, launchChromium } from '../support/chromium.js';
import { createDocsHandler } from '../../src/docs/node.js';

const HAS_CHROMIUM = hasChromium('docs browser port tests');

vi.setConfig({ testTimeout: 60_000 });

const documentWith = (server: string) => ({ openapi: '3.1.0', info: { title: 'Ports', version: '1' }, servers: [{ url: server }], paths: {} });

describe.runIf(HAS_CHROMIUM)('a network-path server with an explicit default port, in Chromium', () => {
  const servers: Server[] = [];
  let browser: Browser | undefined;
  const origins: Record<string, string> = {};

  beforeAll(async () => {
    for (const server of ['//localhost:443/api', '//localhost:80/api']) {
      const docs = createDocsHandler({ documents: [{ url: '/openapi.json', document: documentWith(server) }] });
      const http = createServer((req, res) => docs(req, res) || res.writeHead(404).end());
      servers.push(http);
      origins[server] = await servingOnLoopback(http);
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map(closing));
  });

  /** The URLs among `urls` the page's policy refused, fetched from the docs page served for `server`. */
  async function refused(server: string, urls: string[]): Promise<string[]> {
    const context = await browser!.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origins[server]}/docs`);
      return await page.evaluate(async (targets) => {
        const blocked: string[] = [];
        document.addEventListener('securitypolicyviolation', (event) => blocked.push(event.blockedURI));
        // Not awaited: the policy decides before any connection, and whatever answers (or does
        // not) at those ports is not what is checked.
        for (const target of targets) void fetch(target, { mode: 'no-cors' }).catch(() => undefined);
        // Violation events are dispatched as tasks: let them run.
        await new Promise((resolve) => setTimeout(resolve, 500));
        return blocked;
      }, urls);
    } finally {
      await context.close();
    }
  }

  it('allows //localhost:443 at port 443 from an http: page, not port 80', async () => {
    const blocked = await refused('//localhost:443/api', ['http://localhost:443/api/x', 'http://localhost:80/api/x']);
    expect(blocked.map((uri) => new URL(uri).port)).toEqual(['']);
    expect(blocked[0]).toMatch(/^http:\/\/localhost(\/|$)/);
  });

  it('allows //localhost:80 at port 80 from an http: page, not port 443', async () => {
    const blocked = await refused('//localhost:80/api', ['http://localhost:80/api/x', 'http://localhost:443/api/x']);
    expect(blocked.map((uri) => new URL(uri).port)).toEqual(['443']);
  });
});
