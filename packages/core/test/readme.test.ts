// The root README's example, compiled and served (docs/contract.md#verified-readers). It uses
// `@trpc-oauth2/jwt`, which depends on this package: it is resolved from the workspace (built
// before this package's type check, see turbo.json), not declared as a dependency.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
    let issuer: string;
    let base: string;
    let signingKey: CryptoKey;
    let keySet: Server;
    let server: Server;
    const token = (scope: string, key = signingKey) =>
      new SignJWT({ scope })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(issuer)
        .setAudience('https://api.example')
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key);
    const get = (path: string, authorization?: string) =>
      fetch(`${base}/${path}`, { headers: authorization === undefined ? {} : { authorization } });

    beforeAll(async () => {
      const pair = await generateKeyPair('ES256');
      signingKey = pair.privateKey;
      const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] });
      keySet = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
      await new Promise<void>((resolve) => keySet.listen(0, '127.0.0.1', resolve));
      issuer = `http://127.0.0.1:${(keySet.address() as AddressInfo).port}`;
      process.env.ISSUER = issuer;
      ({ server } = await import('./readme/quick-start.js'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      for (const s of [server, keySet]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
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
