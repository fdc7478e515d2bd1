import { readFileSync } from 'node:fs';
import { format } from 'node:util';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { document, server } from './readme/example.js';
import { tokenServer } from './readme/token-endpoint.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('./readme/example.ts', import.meta.url), 'utf8');
const tokenExample = readFileSync(new URL('./readme/token-endpoint.ts', import.meta.url), 'utf8');

describe('the README example', () => {
  it('is this tested file, word for word (but for the import paths)', () => {
    const published = example
      .replace("'../../src/index.js'", "'@trpc-oauth2/openapi'")
      .replace("'../../src/adapters/standalone.js'", "'@trpc-oauth2/openapi/adapters/standalone'")
      .replace("'../../src/docs/node.js'", "'@trpc-oauth2/openapi/docs/node'");
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
    let logged: MockInstance<typeof console.error>;
    beforeAll(async () => {
      // The example logs every failure: kept here, to be read, instead of printed.
      logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      logged.mockRestore();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('issues a token from a urlencoded form, and answers /me with it', async () => {
      const token = await fetch(`${base}/api/token`, { method: 'POST', body: new URLSearchParams({ username: 'alice', password: 'x' }) });
      expect(await token.json()).toEqual({ access_token: 'token-of-alice', token_type: 'bearer' });
      const me = await fetch(`${base}/api/me`, { headers: { authorization: 'Bearer token-of-alice' } });
      expect(await me.json()).toBe('token-of-alice');
    });

    it('refuses an anonymous /me with 401 and the Bearer challenge', async () => {
      const me = await fetch(`${base}/api/me`);
      expect(me.status).toBe(401);
      expect(me.headers.get('www-authenticate')).toBe('Bearer');
      const body = await me.text();
      expect(JSON.parse(body)).toMatchObject({ message: 'Not authenticated', code: 'UNAUTHORIZED' });
      expect(body).not.toContain('stack'); // isDev: false
    });

    it('serves Swagger UI at /docs and the document at /openapi.json', async () => {
      const page = await fetch(`${base}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await (await fetch(`${base}/openapi.json`)).json()).toEqual(JSON.parse(JSON.stringify(document)));
    });

    it("logs a malformed JSON body's error without the body's text", async () => {
      logged.mockClear();
      const token = await fetch(`${base}/api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"username":"alice","password": hunter2}',
      });
      expect(token.status).toBe(400);
      expect(await token.json()).toMatchObject({ message: 'Failed to parse request body', code: 'PARSE_ERROR' });
      const text = logged.mock.calls.map((args) => format(...args)).join('\n');
      expect(text).toContain('The input is not valid JSON');
      expect(text).not.toContain('hunter2');
    });
  });
});

describe('the README token endpoint', () => {
  it('is this tested file, word for word (but for the import paths), in under 30 lines', () => {
    const published = tokenExample.replace("'../../src/adapters/standalone.js'", "'@trpc-oauth2/openapi/adapters/standalone'");
    expect(readme).toContain('```ts\n' + published + '```');
    expect(published.trimEnd().split('\n').length).toBeLessThan(30);
  });

  describe('serves what its comments say', () => {
    let base: string;
    beforeAll(async () => {
      await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => tokenServer.close(() => resolve()));
    });
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${base}/token`, { method: 'POST', body: new URLSearchParams(fields), headers });

    it('logs in, then refreshes, with no-store', async () => {
      const login = await post({ grant_type: 'password', username: 'alice', password: 'wonderland' }, { authorization: `Basic ${btoa('cli:cli-secret')}` });
      expect(login.status).toBe(200);
      expect(login.headers.get('cache-control')).toBe('no-store');
      const tokens = await login.json();
      expect(tokens).toEqual({ access_token: 'at-alice', token_type: 'Bearer', expires_in: 900, refresh_token: 'rt-alice' });
      const refreshed = await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      expect(refreshed.status).toBe(200);
    });

    it.each<[Record<string, string>, Record<string, string>, number, string, string | null]>([
      [{ grant_type: 'password', username: 'alice', password: 'x' }, {}, 400, 'invalid_grant', null],
      [{ grant_type: 'client_credentials' }, {}, 400, 'unsupported_grant_type', null],
      [{ grant_type: 'password', username: 'alice', password: 'wonderland', client_id: 'cli', client_secret: 'x' }, {}, 401, 'invalid_client', null],
      [{ grant_type: 'password', username: 'alice', password: 'wonderland' }, { authorization: `Basic ${btoa('cli:x')}` }, 401, 'invalid_client', 'Basic'],
    ])('refuses %o in RFC 6749 §5.2 shape', async (fields, headers, status, error, challenge) => {
      const response = await post(fields, headers);
      expect(response.status).toBe(status);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('www-authenticate')).toBe(challenge);
      expect((await response.json()).error).toBe(error);
    });
  });
});
