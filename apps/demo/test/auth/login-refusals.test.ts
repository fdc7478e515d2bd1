import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { SCRYPT_DEFAULTS } from '../../src/store/passwords.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { postToken, request } from '../support/http.js';

// Watch every scrypt the server runs, running the real one: the cost of a login is its scrypt
// calls, so equal calls mean equal work, which a timed assertion could only guess at.
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof crypto>();
  return { ...real, scrypt: vi.fn(real.scrypt) };
});
const scrypt = vi.mocked(crypto.scrypt);

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();

/** What one scrypt call was asked to do, without the salt's value (random per hash). */
const work = (call: unknown[]) => {
  const [password, salt, keyLength, options] = call as [string, Buffer, number, crypto.ScryptOptions];
  return { password, saltBytes: salt.length, keyLength, options };
};

const faces = {
  rest: (username: string, password: string) => postToken(demo.url, { username, password }),
  trpc: (username: string, password: string) =>
    request(`${demo.url}/trpc/auth.token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: { username, password } }),
    }),
};

/** Logs in and returns the answer as a client sees it, and the scrypt work the server did. */
async function attempt(face: keyof typeof faces, username: string, password: string) {
  scrypt.mockClear();
  const { status, headers, body } = await faces[face](username, password);
  const seen = { status, body, cacheControl: headers.get('cache-control'), contentType: headers.get('content-type'), contentLength: headers.get('content-length'), wwwAuthenticate: headers.get('www-authenticate') };
  return { seen, work: scrypt.mock.calls.map(work) };
}

const N = 2 ** SCRYPT_DEFAULTS.logN;
const FULL_COST = { N, r: SCRYPT_DEFAULTS.r, p: SCRYPT_DEFAULTS.p, maxmem: 256 * N * SCRYPT_DEFAULTS.r };

describe('an unknown user and a wrong password are indistinguishable', () => {
  it.each(['rest', 'trpc'] as const)('give the same status, headers and body (%s)', async (face) => {
    const wrongPassword = await attempt(face, 'alice', 'not-her-password');
    const unknownUser = await attempt(face, `nobody-answered-${face}`, 'not-her-password');
    expect(unknownUser.seen).toEqual(wrongPassword.seen);
    expect(wrongPassword.seen.status).toBe(400);
    if (face === 'rest') expect(wrongPassword.seen.body).toEqual({ error: 'invalid_grant', error_description: 'Incorrect username or password' });
    else expect(wrongPassword.seen.body.error.json.data.oauth2).toEqual({ code: 'ERR_INVALID_GRANT', error: 'invalid_grant', error_description: 'Incorrect username or password', challenge: null, dpopNonce: null });
  });

  it.each(['rest', 'trpc'] as const)('run one full-cost scrypt on the password sent, as a right password does (%s)', async (face) => {
    const right = await attempt(face, 'alice', 'wonderland');
    const wrongPassword = await attempt(face, 'alice', 'not-her-password');
    const unknownUser = await attempt(face, `nobody-hashed-${face}`, 'not-her-password');
    expect(right.seen.status).toBe(200);
    const expected = (password: string) => [{ password, saltBytes: 16, keyLength: 32, options: FULL_COST }];
    expect(right.work).toEqual(expected('wonderland'));
    expect(wrongPassword.work).toEqual(expected('not-her-password'));
    // The dummy hash: same parameters, same salt and key sizes, so the same memory and time.
    expect(unknownUser.work).toEqual(expected('not-her-password'));
  });
});
