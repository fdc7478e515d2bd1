import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SIGNING_KEY_FILE } from '../../src/auth/signing-key.js';
import { AUTHORIZATION_SERVER_KEYS_FILE } from '../../src/authorization-server/keys.js';
import { SERVER_TIMEOUT_MS, startTestDemo, tempDataDir } from '../support/demo-server.js';
import { bearer, login, postToken, request } from '../support/http.js';
import { readStoredKey } from '../support/tokens.js';

let dataDir: string | undefined;
afterAll(() => (dataDir === undefined ? undefined : rm(dataDir, { recursive: true, force: true })));

it('keeps users, refresh tokens, the signing key and the authorization server\'s keys across a restart', async () => {
  dataDir = await tempDataDir();
  const first = await startTestDemo(dataDir);
  let tokens;
  let spent;
  let authorizationServerKid: string | undefined;
  try {
    expect(first.seeded).toEqual(['alice', 'bob']);
    tokens = await login(first.url, 'alice', 'wonderland');
    // Rotate once, so the restarted server must also remember a spent token.
    spent = tokens.refresh_token;
    tokens = (await postToken(first.url, { grant_type: 'refresh_token', refresh_token: spent })).body;
    authorizationServerKid = (await request(`${first.url}/oidc/jwks`)).body.keys[0].kid;
  } finally {
    await first.stop();
  }
  const { kid } = await readStoredKey(dataDir);
  expect((await stat(join(dataDir, SIGNING_KEY_FILE))).mode & 0o777).toBe(0o600);
  expect((await stat(join(dataDir, AUTHORIZATION_SERVER_KEYS_FILE))).mode & 0o777).toBe(0o600);

  const second = await startTestDemo(dataDir);
  try {
    expect(second.seeded).toEqual([]);
    expect((await readStoredKey(dataDir)).kid).toBe(kid);
    // The authorization server signs with the key it had: its tokens stay verifiable.
    expect((await request(`${second.url}/oidc/jwks`)).body.keys.map((key: { kid: string }) => key.kid)).toEqual([authorizationServerKid]);
    // Signed before the restart, still valid: the key was loaded, not regenerated.
    const me = await request(`${second.url}/api/users/me`, { headers: bearer(tokens.access_token) });
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('alice');
    const refreshed = await postToken(second.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('me items');
    // The token spent before the restart is still known as spent: reuse is caught.
    expect((await postToken(second.url, { grant_type: 'refresh_token', refresh_token: spent })).body.error).toBe('invalid_grant');
    expect((await login(second.url, 'bob', 'builder')).scope).toBe('me');
  } finally {
    await second.stop();
  }
}, 3 * SERVER_TIMEOUT_MS);
