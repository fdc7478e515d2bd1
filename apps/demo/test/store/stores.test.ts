import { openPglite, type Database } from '../../src/store/database.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as passwords from '../../src/store/passwords.js';
import { AlreadyRecordedError, OidcPayloadStore } from '../../src/store/oidc-payloads.js';
import { REFRESH_TOKEN_SWEEP_EVERY, RefreshTokenStore } from '../../src/store/refresh-tokens.js';
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

  describe('sweep', () => {
    const byToken = `token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')`;
    const familyOf = async (token: string) =>
      (await db.query<{ family_id: string }>(`SELECT family_id FROM refresh_tokens WHERE ${byToken}`, [token])).rows[0]!.family_id;
    const rowsOf = async (familyId: string) =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM refresh_tokens WHERE family_id = $1', [familyId])).rows[0]!.n;
    /** Moves a token's expiry into the past, as its lifetime passing would. */
    const expire = (token: string) => db.query(`UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE ${byToken}`, [token]);
    /** A family used `uses` times: its tokens, oldest first (the last one unused). */
    const family = async (uses: number) => {
      const tokens = [await store().issue(grant)];
      for (let i = 0; i < uses; i++) {
        const next = await store().rotate(tokens.at(-1)!, 'demo-cli', []);
        if (!next.ok) throw new Error(`the rotation failed: ${next.reason}`);
        tokens.push(next.refreshToken);
      }
      return tokens;
    };

    // A family goes once none of its tokens can be used again: every one expired, or every one
    // revoked. A spent token of a family still in use stays, however long ago it expired: its
    // replay is the sign of a stolen token, and must revoke the family (RFC 9700 §4.14.2).
    it('deletes the families none of whose tokens can be used again, and keeps every token of the others', async () => {
      const expired = await family(3);
      for (const token of expired) await expire(token);
      const loggedOut = await family(1);
      await store().revoke(loggedOut[1]!, 'demo-cli');
      const inUse = await family(3);
      for (const token of inUse.slice(0, -1)) await expire(token);
      // A family left half revoked, as a revocation racing a rotation once could: its live token
      // is refused by the revoked one.
      const halfRevoked = await family(1);
      await db.query(`UPDATE refresh_tokens SET revoked_at = now() WHERE ${byToken}`, [halfRevoked[0]]);
      const ids = { expired: await familyOf(expired[0]!), loggedOut: await familyOf(loggedOut[0]!), inUse: await familyOf(inUse[0]!), halfRevoked: await familyOf(halfRevoked[0]!) };

      expect(await store().sweep()).toBeGreaterThanOrEqual(6);
      expect({ expired: await rowsOf(ids.expired), loggedOut: await rowsOf(ids.loggedOut), inUse: await rowsOf(ids.inUse), halfRevoked: await rowsOf(ids.halfRevoked) })
        .toEqual({ expired: 0, loggedOut: 0, inUse: 4, halfRevoked: 2 });
      expect(await store().rotate(expired.at(-1)!, 'demo-cli', [])).toEqual({ ok: false, reason: 'unknown' });
      expect(await store().rotate(halfRevoked[1]!, 'demo-cli', [])).toEqual({ ok: false, reason: 'revoked' });
      // The first token of the family in use, spent and expired, replayed: the family is revoked…
      expect(await store().rotate(inUse[0]!, 'demo-cli', [])).toEqual({ ok: false, reason: 'reused' });
      expect(await store().rotate(inUse.at(-1)!, 'demo-cli', [])).toEqual({ ok: false, reason: 'revoked' });
      // …and so goes at the next sweep, with the half-revoked one, now revoked whole.
      await store().sweep();
      expect(await rowsOf(ids.inUse)).toBe(0);
      expect(await rowsOf(ids.halfRevoked)).toBe(0);
    });

    it(`runs by itself every ${REFRESH_TOKEN_SWEEP_EVERY} tokens a store issues`, async () => {
      const tokens = new RefreshTokenStore(db, 3600);
      const expired = await tokens.issue(grant);
      await expire(expired);
      const id = await familyOf(expired);
      for (let i = 1; i < REFRESH_TOKEN_SWEEP_EVERY - 1; i++) await tokens.issue(grant);
      expect(await rowsOf(id)).toBe(1);
      // The last one is a rotation: they count too.
      const next = await tokens.rotate(await store().issue(grant), 'demo-cli', []);
      expect(next.ok).toBe(true);
      expect(await rowsOf(id)).toBe(0);
    });
  });
});

describe('OidcPayloadStore', () => {
  // oidc-provider records a proof's `jti` (ReplayDetection) after looking for it: of saves of one
  // proof by requests that each found it unrecorded, one only may succeed (RFC 9449 §11.1).
  it('records a proof once: a second save, at the same time or later, is refused until the first expires', async () => {
    const proofs = new OidcPayloadStore(db).adapter('ReplayDetection');
    const payload = { iss: 'swagger-ui', jti: 'proof', kind: 'ReplayDetection' };
    const saves = await Promise.allSettled([proofs.upsert('proof', payload, 60), proofs.upsert('proof', payload, 60)]);
    expect(saves.map((save) => save.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(saves.find((save) => save.status === 'rejected')?.reason).toBeInstanceOf(AlreadyRecordedError);
    await expect(proofs.upsert('proof', payload, 60)).rejects.toBeInstanceOf(AlreadyRecordedError);
    expect(await proofs.find('proof')).toMatchObject(payload);
    await db.query(`UPDATE oidc_payloads SET expires_at = now() - interval '1 second' WHERE model = 'ReplayDetection' AND id = 'proof'`);
    await proofs.upsert('proof', payload, 60);
    expect(await proofs.find('proof')).toMatchObject(payload);
  });

  it('saves the other objects again as they change', async () => {
    const sessions = new OidcPayloadStore(db).adapter('Session');
    await sessions.upsert('session', { uid: 'u', kind: 'Session' }, 60);
    await sessions.upsert('session', { uid: 'u', kind: 'Session', accountId: 'carol' }, 600);
    expect(await sessions.find('session')).toMatchObject({ accountId: 'carol' });
  });
});
