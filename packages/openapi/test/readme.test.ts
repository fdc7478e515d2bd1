import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { document, server } from './readme/example.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('./readme/example.ts', import.meta.url), 'utf8');

describe('the README example', () => {
  it('is this tested file, word for word (but for the import path)', () => {
    const published = example.replace("'../../src/index.js'", "'@trpc-oauth2/openapi'");
    expect(readme).toContain('```ts\n' + published + '```');
  });

  it('documents what its comments say, validly', async () => {
    const paths = document.paths as Record<string, Record<string, any>>;
    expect(paths['/me']!.get.security).toEqual([{ OAuth2PasswordBearer: ['me'] }]);
    expect(Object.keys(paths['/token']!.post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(await new Validator().validate(JSON.parse(JSON.stringify(document)))).toEqual({ valid: true });
  });

  describe('serves what its comments say', () => {
    let base: string;
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('issues a token from a urlencoded form, and answers /me with it', async () => {
      const token = await fetch(`${base}/token`, { method: 'POST', body: new URLSearchParams({ username: 'alice', password: 'x' }) });
      expect(await token.json()).toEqual({ access_token: 'token-of-alice', token_type: 'bearer' });
      const me = await fetch(`${base}/me`, { headers: { authorization: 'Bearer token-of-alice' } });
      expect(await me.json()).toBe('token-of-alice');
    });

    it('refuses an anonymous /me with 401 and the Bearer challenge', async () => {
      const me = await fetch(`${base}/me`);
      expect(me.status).toBe(401);
      expect(me.headers.get('www-authenticate')).toBe('Bearer');
      expect(await me.json()).toMatchObject({ message: 'Not authenticated', code: 'UNAUTHORIZED' });
    });
  });
});
