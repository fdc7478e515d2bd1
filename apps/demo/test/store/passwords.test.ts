import { describe, expect, it } from 'vitest';
import { hashPassword, SCRYPT_DEFAULTS, verifyPassword } from '../../src/store/passwords.js';

// Cheap parameters keep this file fast; the stored hash carries them, so verify reads them back.
const FAST = { logN: 10, r: 8, p: 1 };

describe('password hashing', () => {
  it('stores scrypt hashes as PHC strings with the parameters used', async () => {
    expect(await hashPassword('wonderland', FAST)).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  });

  it('defaults to an OWASP-recommended cost', () => {
    expect(SCRYPT_DEFAULTS).toEqual({ logN: 15, r: 8, p: 3 });
  });

  it('salts each hash', async () => {
    expect(await hashPassword('same', FAST)).not.toBe(await hashPassword('same', FAST));
  });

  it.each([
    ['the right password', 'wonderland', true],
    ['a wrong password', 'wonderlanD', false],
    ['an empty password', '', false],
    ['the password with a trailing space', 'wonderland ', false],
  ])('verifies %s', async (_name, attempt, expected) => {
    expect(await verifyPassword(attempt, await hashPassword('wonderland', FAST))).toBe(expected);
  });

  it('compares Unicode passwords in NFC', async () => {
    const stored = await hashPassword('caf\u00e9', FAST);
    expect(await verifyPassword('cafe\u0301', stored)).toBe(true);
  });

  it('refuses a stored hash it cannot read', async () => {
    await expect(verifyPassword('x', 'plaintext')).rejects.toThrow('Stored password hash is not a scrypt PHC string');
  });
});
