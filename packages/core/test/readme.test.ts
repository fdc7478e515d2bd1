import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { server } from './readme/quick-start.js';

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

  describe('works as it says', () => {
    let base: string;
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('refuses an anonymous call with 401 and the Bearer challenge', async () => {
      const response = await fetch(`${base}/me`);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.text()).not.toContain('stack'); // isDev: false
    });

    it('answers with the token and the accumulated scopes', async () => {
      const headers = { authorization: 'Bearer abc' };
      expect(await (await fetch(`${base}/me`, { headers })).json()).toEqual({ result: { data: { token: 'abc', scopes: ['me'] } } });
      expect(await (await fetch(`${base}/items`, { headers })).json()).toEqual({ result: { data: 'me items' } });
    });

    it('issues a token from a multipart form', async () => {
      const body = new FormData();
      body.set('username', 'alice');
      body.set('password', 'secret');
      const response = await fetch(`${base}/token`, { method: 'POST', body });
      expect(await response.json()).toEqual({ result: { data: { access_token: 'token-of-alice', token_type: 'Bearer' } } });
    });
  });
});
