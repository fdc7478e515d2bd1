/**
 * The metadata in a real browser (Debian's Chromium, driven by playwright-core): a page on another
 * origin reads both documents as a browser's MCP client discovers them, with the
 * `MCP-Protocol-Version` header the client sends on every discovery request, which a CORS
 * preflight must allow (docs/contract.md#protected-resource-metadata,
 * docs/contract.md#authorization-server-metadata).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { oauth2Bearer, type Principal, type TokenVerifier } from '@trpc-oauth2/core';
import { authorizationServerMetadata, tokenEndpoint, type AuthorizationServerMetadata } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.js';
import { AUTHORIZATION_SERVER_METADATA_PATH, protectedResourceMetadata, RESOURCE_METADATA_PATH, resourceMetadataUrl, type ProtectedResourceMetadata } from '../../src/index.js';
import { FACES, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const HAS_CHROMIUM = hasChromium('metadata browser tests');

vi.setConfig({ testTimeout: 60_000 });

const RESOURCE = 'http://127.0.0.1/mcp';
const ISSUER = 'http://127.0.0.1';
// What @modelcontextprotocol/sdk's discovery sends besides `Accept` (its protocol version at the time).
const DISCOVERY_HEADERS = { 'MCP-Protocol-Version': '2025-06-18', Accept: 'application/json' };

const t = initTRPC.context<{ req?: unknown }>().meta<{ openapi?: { method: 'GET' | 'POST'; path: `/${string}` } }>().create();
const verify: TokenVerifier<Principal> = Object.assign(async (token: string) => ({ scopes: token.split('+') }), { audience: [RESOURCE], issuer: [ISSUER] });
const auth = oauth2Bearer({ flows: { clientCredentials: { tokenUrl: `${ISSUER}/token`, scopes: { 'items:read': 'Read' } } }, resourceMetadata: resourceMetadataUrl(RESOURCE), verify });
const token = tokenEndpoint(t.procedure, { authenticateClient: () => ({ clientId: 'app' }) })
  .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' as const, expires_in: 60 }))
  .build();
const router = t.router({ items: t.procedure.use(auth.withScopes('items:read')).query(() => 'items'), token });

describe.runIf(HAS_CHROMIUM)('the metadata, read by a page on another origin in Chromium', () => {
  let resource: ProtectedResourceMetadata;
  let server: AuthorizationServerMetadata;
  let faces: Record<Face, RunningFace>;
  let site: Server | undefined;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    resource = protectedResourceMetadata(router, { resource: RESOURCE, authorizationServers: [ISSUER] });
    server = authorizationServerMetadata({ issuer: ISSUER, token: { procedure: token, url: `${ISSUER}/token` } });
    faces = await serveFaces(router, FACES, { resourceMetadata: resource, authorizationServerMetadata: server });
    // The page's own origin: `localhost`, where the faces are at 127.0.0.1.
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title>'));
    await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/`);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all(Object.values(faces ?? {}).map((face) => face.close()));
    await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  });

  /** What the page's `fetch` gets: the status and the JSON, or the error a CORS refusal is. */
  const read = (url: string) =>
    page.evaluate(
      async ([target, headers]) => {
        try {
          const response = await fetch(target, { headers });
          return { status: response.status, json: await response.json() };
        } catch (error) {
          return { error: String(error) };
        }
      },
      [url, DISCOVERY_HEADERS] as const,
    );

  it.each(FACES)('on the %s face, with the headers an MCP client sends', async (face) => {
    const { origin } = faces[face];
    expect(await read(`${origin}${RESOURCE_METADATA_PATH}/mcp`)).toEqual({ status: 200, json: resource });
    expect(await read(`${origin}${AUTHORIZATION_SERVER_METADATA_PATH}`)).toEqual({ status: 200, json: server });
  });
});
