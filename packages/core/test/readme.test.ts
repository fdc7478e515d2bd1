// The root README's example, compiled and served (docs/contract.md#verified-readers). It uses
// `@trpc-oauth2/jwt`, which depends on this package: it is resolved from the workspace (built
// before this package's type check, see turbo.json), not declared as a dependency.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { generateKeyPair, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closing, serveKeySet, servingOnLoopback, type LoopbackKeySet } from '@trpc-oauth2/test-kit';

const readmes = {
  'the root README': readFileSync(new URL('../../../README.md', import.meta.url), 'utf8'),
  "the package's README": readFileSync(new URL('../README.md', import.meta.url), 'utf8'),
};
const example = readFileSync(new URL('./readme/quick-start.ts', import.meta.url), 'utf8');

describe('the README example', () => {
  it.each(Object.entries(readmes))('in %s is this tested file, word for word (but for the import path)', (_, readme) => {
    const published = example.replace("'../../src/index.js'", "'@trpc-oauth2/core'");
    expect(readme).toContain('```ts\n' + published + '```');
  });

  describe('works as it says, against a key set on loopback', () => {
    let base: string;
    let keySet: LoopbackKeySet;
    let server: Server;
    const token = (scope: string, key?: CryptoKey) => keySet.token({ scope }, { key });
    const get = (path: string, authorization?: string) =>
      fetch(`${base}/${path}`, { headers: authorization === undefined ? {} : { authorization } });

    beforeAll(async () => {
      keySet = await serveKeySet();
      ({ server } = await import('./readme/quick-start.js'));
      base = await servingOnLoopback(server);
    });
    afterAll(async () => {
      await Promise.all([server && closing(server), keySet?.close()]);
    });

    it('refuses an anonymous call with 401 and the Bearer challenge', async () => {
      const response = await get('me');
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.text()).not.toContain('stack'); // isDev: false
    });

    it('answers with the verified subject and the accumulated scopes', async () => {
      const authorization = `Bearer ${await token('me items')}`;
      expect(await (await get('me', authorization)).json()).toEqual({ result: { data: { subject: 'alice', scopes: ['me'] } } });
      expect(await (await get('items', authorization)).json()).toEqual({ result: { data: 'me items' } });
    });

    it('refuses a scope the token does not grant with 403 insufficient_scope', async () => {
      const response = await get('items', `Bearer ${await token('me')}`);
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="me items"');
    });

    it('refuses a token signed by another key with 401 invalid_token', async () => {
      const other = (await generateKeyPair('ES256')).privateKey;
      const response = await get('me', `Bearer ${await token('me', other)}`);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token", error_description="The access token signature is invalid"');
    });
  });
});
