// Both signature steps refuse, when they prepare it, a key whose own restrictions forbid the
// algorithm (a JWK's `alg`, `use`, `key_ops`; a CryptoKey's algorithm, hash, curve, usages), and
// read a segment with a UTF-8 BOM as no JSON: one key, one segment, one answer on every runtime.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signature as nodeSignature } from '../../src/jws/signature/node.js';
import { signature as webSignature } from '../../src/jws/signature/web.js';
import type { SignatureStep } from '../../src/jws/signature/step.js';
import { jsonSegment } from '../../src/jws/compact.js';

const STEPS: SignatureStep[] = [nodeSignature as SignatureStep, webSignature as SignatureStep];
const rsaJwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
const ecJwk = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' });
const prepared = async (step: SignatureStep, key: Parameters<SignatureStep['prepare']>[0], alg: string) => {
  try {
    await step.prepare(key, alg);
    return 'prepared';
  } catch (error) {
    return error instanceof TypeError ? 'refused' : error;
  }
};

describe.each(STEPS)('the $name step', (step) => {
  it.each([
    ['an alg that is another', { ...rsaJwk, alg: 'RS256' }, 'PS256', 'refused'],
    ['a use that is not sig', { ...rsaJwk, use: 'enc' }, 'RS256', 'refused'],
    ['key_ops without verify', { ...rsaJwk, key_ops: ['encrypt'] }, 'RS256', 'refused'],
    ['key_ops that are not an array', { ...rsaJwk, key_ops: 'verify' }, 'RS256', 'refused'],
    ['an alg, use and key_ops that allow it', { ...rsaJwk, alg: 'PS256', use: 'sig', key_ops: ['verify'] }, 'PS256', 'prepared'],
    ['no restriction', ecJwk, 'ES256', 'prepared'],
  ])('a JWK with %s', async (_name, jwk, alg, expected) => {
    expect(await prepared(step, jwk as never, alg)).toBe(expected);
  });

  it('a CryptoKey imported for another algorithm, hash or curve, or without the verify usage, is refused', async () => {
    const rsa = (name: string, hash: string, usages: KeyUsage[] = ['verify']) => crypto.subtle.importKey('jwk', rsaJwk, { name, hash }, false, usages);
    const pkcs1 = await rsa('RSASSA-PKCS1-v1_5', 'SHA-256');
    expect(await prepared(step, pkcs1, 'RS256')).toBe('prepared');
    expect(await prepared(step, pkcs1, 'RS384')).toBe('refused');
    expect(await prepared(step, pkcs1, 'PS256')).toBe('refused');
    expect(await prepared(step, await rsa('RSA-PSS', 'SHA-512'), 'PS512')).toBe('prepared');
    expect(await prepared(step, await rsa('RSA-PSS', 'SHA-512'), 'PS256')).toBe('refused');
    expect(await prepared(step, await rsa('RSASSA-PKCS1-v1_5', 'SHA-256', []), 'RS256')).toBe('refused');
    const p256 = await crypto.subtle.importKey('jwk', ecJwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    expect(await prepared(step, p256, 'ES256')).toBe('prepared');
    expect(await prepared(step, p256, 'ES384')).toBe('refused');
  });

  it('reads a segment that starts with a UTF-8 BOM as no JSON object', () => {
    const segment = (bytes: number[], text: string) => Buffer.concat([Buffer.from(bytes), Buffer.from(text)]).toString('base64url');
    expect(jsonSegment(step, segment([], '{"a":1}'))).toEqual({ a: 1 });
    expect(jsonSegment(step, segment([0xef, 0xbb, 0xbf], '{"a":1}'))).toBeUndefined();
  });
});
