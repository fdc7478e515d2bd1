import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { server } from './readme/quick-start.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('./readme/quick-start.ts', import.meta.url), 'utf8');

describe('the README example', () => {
  it('is this tested file, word for word (but for the import path)', () => {
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
    });

    it('answers with the verified principal and the accumulated scopes', async () => {
      const headers = { authorization: 'Bearer token-of-alice' };
      expect(await (await fetch(`${base}/me`, { headers })).json()).toEqual({ result: { data: { subject: 'alice', scopes: ['me'] } } });
    });

    it('refuses a scope the token does not grant with 403 insufficient_scope', async () => {
      const response = await fetch(`${base}/items`, { headers: { authorization: 'Bearer token-of-alice' } });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="me items"');
    });

    it('refuses a token the verifier refuses with 401 invalid_token', async () => {
      const response = await fetch(`${base}/me`, { headers: { authorization: 'Bearer forged' } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token", error_description="Unknown token"');
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
