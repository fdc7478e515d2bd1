// The root README's resource server, word for word, served against a key set on loopback
// (docs/contract.md#protected-resource-metadata, docs/contract.md#challenges).
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closing, serveKeySet, servingOnLoopback, type LoopbackKeySet } from '@trpc-oauth2/test-kit';

const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('../readme/resource-server.ts', import.meta.url), 'utf8');
const RESOURCE = 'https://api.example/mcp';
const METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

describe("the root README's resource server", () => {
  it('is this tested file, word for word (but for the import paths)', () => {
    const published = example
      .replace("'../../src/index.js'", "'@trpc-oauth2/openapi'")
      .replace("'../../src/adapters/standalone.js'", "'@trpc-oauth2/openapi/adapters/standalone'");
    expect(readme).toContain('```ts\n' + published + '```');
  });

  describe('serves what its comments say', () => {
    let issuer: string;
    let base: string;
    let keySet: LoopbackKeySet;
    let server: Server;
    const token = (scope: string, audience = RESOURCE) => keySet.token({ scope }, { audience });
    const items = async (authorization?: string) => {
      const response = await fetch(`${base}/items`, { headers: authorization === undefined ? {} : { authorization } });
      return { status: response.status, challenge: response.headers.get('www-authenticate') };
    };

    beforeAll(async () => {
      keySet = await serveKeySet();
      issuer = keySet.issuer;
      ({ resourceServer: server } = await import('../readme/resource-server.js'));
      base = await servingOnLoopback(server);
    });
    afterAll(async () => {
      await Promise.all([server && closing(server), keySet?.close()]);
    });

    it('announces itself at its well-known URL', async () => {
      const response = await fetch(`${base}${METADATA_PATH}`);
      expect(await response.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [issuer],
        scopes_supported: ['items:read', 'items:write'],
        bearer_methods_supported: ['header'],
      });
    });

    it('points every refusal at it, and lets a write grant read', async () => {
      const metadata = `resource_metadata="https://api.example${METADATA_PATH}"`;
      expect(await items()).toEqual({ status: 401, challenge: `Bearer ${metadata}` });
      expect(await items(`Bearer ${await token('items:read', 'https://other.example/api')}`)).toEqual({
        status: 401,
        challenge: `Bearer error="invalid_token", error_description="The access token is meant for another audience", ${metadata}`,
      });
      expect(await items(`Bearer ${await token('other')}`)).toEqual({ status: 403, challenge: `Bearer error="insufficient_scope", scope="items:read", ${metadata}` });
      expect(await items(`Bearer ${await token('items:write')}`)).toEqual({ status: 200, challenge: null });
    });
  });
});
