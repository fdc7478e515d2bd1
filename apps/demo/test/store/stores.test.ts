import { openPglite, type Database } from '../../src/store/database.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as passwords from '../../src/store/passwords.js';
import { RefreshTokenStore } from '../../src/store/refresh-tokens.js';
import { migrate } from '../../src/store/schema.js';
import { UserStore, type NewUser } from '../../src/store/users.js';
import { SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../support/demo-server.js';

// Count the password checks, running the real ones.
vi.mock('../../src/store/passwords.js', async (importOriginal) => {
  const real = await importOriginal<typeof passwords>();
  return { ...real, verifyPassword: vi.fn(real.verifyPassword) };
});
const verifyPassword = vi.mocked(passwords.verifyPassword);

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const carol: NewUser = {
  username: 'carol',
  password: 'correct horse',
  fullName: 'Carol',
  email: 'carol@example.com',
  scopes: ['me'],
  items: ['Battery staple', 'Horse'],
};

let db: Database;
let users: UserStore;
let carolHash: string;
const storedHashes = async () =>
  Object.fromEntries((await db.query<{ username: string; password_hash: string }>('SELECT username, password_hash FROM users')).rows.map((row) => [row.username, row.password_hash]));
beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
  users = await UserStore.open(db);
  expect(await users.seed([carol, { ...carol, username: 'dave', password: 'x', items: [] }])).toEqual(['carol', 'dave']);
  await db.query("UPDATE users SET disabled = true WHERE username = 'dave'");
  carolHash = (await db.query<{ password_hash: string }>("SELECT password_hash FROM users WHERE username = 'carol'")).rows[0]!.password_hash;
}, SERVER_TIMEOUT_MS);
afterAll(() => db?.close());

describe('UserStore', () => {
  it('stores a scrypt hash, never the password', async () => {
    expect(carolHash).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$/);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE password_hash LIKE $1', ['%correct horse%']);
    expect(rows[0]!.n).toBe(0);
  });

  it('authenticates the right password', async () => {
    expect(await users.authenticate('carol', 'correct horse')).toEqual({
      username: 'carol',
      fullName: 'Carol',
      email: 'carol@example.com',
      scopes: ['me'],
    });
  });

  it.each([
    ['a wrong password', 'carol', 'wrong horse'],
    ['an unknown user', 'nobody', 'correct horse'],
    ['a disabled user (right password)', 'dave', 'x'],
  ])('refuses %s after one full scrypt check', async (_name, username, password) => {
    verifyPassword.mockClear();
    expect(await users.authenticate(username, password)).toBeNull();
    expect(verifyPassword).toHaveBeenCalledTimes(1);
    const checked = verifyPassword.mock.calls[0]![1];
    // The dummy hash has the same parameters as a real one, so it costs the same.
    expect(checked).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$/);
    const hashes = await storedHashes();
    if (username in hashes) expect(checked).toBe(hashes[username]);
    else expect(Object.values(hashes)).not.toContain(checked);
  });

  it('finds enabled users only, and lists items in order', async () => {
    expect((await users.find('carol'))?.username).toBe('carol');
    expect(await users.find('dave')).toBeNull();
    expect(await users.find('nobody')).toBeNull();
    expect((await users.items('carol')).map((item) => item.title)).toEqual(['Battery staple', 'Horse']);
  });

  it('seeds only the users that do not exist yet', async () => {
    expect(await users.seed([carol])).toEqual([]);
  });
});

describe('RefreshTokenStore', () => {
  const grant = { username: 'carol', clientId: 'demo-cli', scopes: ['me'] };
  const store = () => new RefreshTokenStore(db, 3600);

  it('stores only a digest of each token', async () => {
    const token = await store().issue(grant);
    const { rows } = await db.query<{ token_hash: string }>('SELECT token_hash FROM refresh_tokens');
    expect(rows.map((row) => row.token_hash)).not.toContain(token);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);
  });

  it('rotates within the family, and a reuse revokes the family', async () => {
    const first = await store().issue(grant);
    const second = await store().rotate(first, 'demo-cli', []);
    expect(second).toMatchObject({ ok: true, grant });
    if (!second.ok) return;
    const third = await store().rotate(second.refreshToken, 'demo-cli', []);
    expect(third.ok).toBe(true);
    expect(await store().rotate(first, 'demo-cli', [])).toEqual({ ok: false, reason: 'reused' });
    if (!third.ok) return;
    expect(await store().rotate(third.refreshToken, 'demo-cli', [])).toEqual({ ok: false, reason: 'revoked' });
  });

  it.each<[string, (token: string) => Promise<unknown>, string]>([
    ['an unknown token', () => store().rotate('nope', 'demo-cli', []), 'unknown'],
    ['another client', (token) => store().rotate(token, null, []), 'wrong_client'],
    ['a wider scope', (token) => store().rotate(token, 'demo-cli', ['me', 'items']), 'scope_exceeded'],
  ])('refuses %s and leaves the token unspent', async (_name, attempt, reason) => {
    const token = await store().issue(grant);
    expect(await attempt(token)).toEqual({ ok: false, reason });
    expect((await store().rotate(token, 'demo-cli', ['me'])).ok).toBe(true);
  });

  it('refuses an expired token', async () => {
    const token = await new RefreshTokenStore(db, 0).issue(grant);
    expect(await store().rotate(token, 'demo-cli', [])).toEqual({ ok: false, reason: 'expired' });
  });

  it('a revocation revokes the whole family, successors included', async () => {
    const first = await store().issue(grant);
    const second = await store().rotate(first, 'demo-cli', []);
    if (!second.ok) throw new Error('the rotation failed');
    await store().revoke(first, null); // another client's: left alone
    expect((await store().rotate(second.refreshToken, 'demo-cli', [])).ok).toBe(true);
    const family = await store().issue(grant);
    const next = await store().rotate(family, 'demo-cli', []);
    if (!next.ok) throw new Error('the rotation failed');
    await store().revoke(family, 'demo-cli');
    expect(await store().rotate(next.refreshToken, 'demo-cli', [])).toEqual({ ok: false, reason: 'revoked' });
  });

  it('refuses a live token of a family in which a token is revoked, and revokes the rest of the family', async () => {
    const first = await store().issue(grant);
    const second = await store().rotate(first, 'demo-cli', []);
    if (!second.ok) throw new Error('the rotation failed');
    // A family left half revoked, as a revocation racing a rotation once could.
    await db.query(
      `UPDATE refresh_tokens SET revoked_at = now()
        WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')`,
      [first],
    );
    expect(await store().rotate(second.refreshToken, 'demo-cli', [])).toEqual({ ok: false, reason: 'revoked' });
    const { rows } = await db.query<{ live: number }>(
      `SELECT count(*)::int AS live FROM refresh_tokens
        WHERE family_id = (SELECT family_id FROM refresh_tokens WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex'))
          AND revoked_at IS NULL`,
      [first],
    );
    expect(rows[0]!.live).toBe(0);
  });
});
