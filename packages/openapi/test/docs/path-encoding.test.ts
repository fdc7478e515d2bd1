/**
 * A docs `path` or document `url` outside plain ASCII (`/références`, a space, a quote) is
 * reached at the percent-encoded path a browser requests, and is written into the page's HTML as
 * a URL, never as markup (docs/contract.md#openapi).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocsFetchHandler } from '../../src/docs/index.js';
import { createDocsHandler, swaggerUiAssets } from '../../src/docs/node.js';
import type { DocsOptions } from '../../src/docs/swagger-ui.js';

const document = { openapi: '3.1.0', info: { title: 'Paths', version: '1' }, paths: {} };
const OPTIONS: DocsOptions[] = [
  { path: '/références', documents: [{ url: '/spécs/openapi.json', document }] },
  { path: '/docs"><script src="/evil.js"></script><a x="', documents: [{ url: '/openapi.json', document }] },
];

const listen = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));

const faces: { name: string; options: DocsOptions; origin: string; close: () => Promise<void> }[] = [];

beforeAll(async () => {
  for (const options of OPTIONS) {
    const docs = createDocsHandler(options);
    const node = createServer((req, res) => docs(req, res, () => res.writeHead(418).end('next')));
    faces.push({ name: `node ${options.path}`, options, origin: await listen(node), close: () => new Promise((resolve) => node.close(() => resolve())) });
    const handle = createDocsFetchHandler({ ...options, assets: swaggerUiAssets() });
    const fetchServer = serve({ fetch: async (req) => (await handle(req)) ?? new Response('next', { status: 418 }), port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise((resolve) => fetchServer.once('listening', resolve));
    faces.push({
      name: `fetch ${options.path}`,
      options,
      origin: `http://127.0.0.1:${(fetchServer.address() as AddressInfo).port}`,
      close: () => new Promise((resolve) => fetchServer.close(() => resolve())),
    });
  }
});
afterAll(async () => {
  for (const face of faces) await face.close();
});

describe('docs paths that a browser percent-encodes', () => {
  it('serves the page, each file it links and the document at the URL a browser requests, on both adapters', async () => {
    for (const face of faces) {
      // What a browser requests for the path typed in its address bar.
      const page = await fetch(new URL(face.options.path!, face.origin));
      expect(page.status, face.name).toBe(200);
      const html = await page.text();
      // Each `src` and `href` of the page is a URL of the docs that answers 200.
      const links = [...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&').replaceAll('&#39;', "'"));
      expect(links.length, face.name).toBe(6);
      for (const link of links) expect((await fetch(new URL(link, face.origin))).status, `${face.name}: ${link}`).toBe(200);
      const json = await fetch(new URL(face.options.documents[0].url, face.origin));
      expect(json.status, face.name).toBe(200);
      expect(await json.json()).toEqual(document);
    }
  });

  it('writes a path with a quote as a URL inside the attribute, never as markup', async () => {
    for (const face of faces.filter(({ options }) => options.path!.includes('"'))) {
      const html = await (await fetch(new URL(face.options.path!, face.origin))).text();
      expect(html, face.name).not.toContain('<script src="/evil.js">');
      expect(html.match(/<script /g)?.length, face.name).toBe(3);
    }
  });
});
