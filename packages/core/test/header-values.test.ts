/**
 * The error factories never build a header an HTTP field cannot carry: each throws a `TypeError`
 * where the refusal is built (docs/contract.md#challenges: "since it would rewrite the header").
 */
import { describe, expect, it } from 'vitest';
import { OAuth2Error } from '../src/errors.js';
import { dpopChallenge, useDPoPNonceError } from '../src/dpop/index.js';
import { tokenError } from '../src/token-endpoint/index.js';

describe('header values of refusals', () => {
  it.each(['n\r\nSet-Cookie: pwn=1', '令牌', 'a b', 'a"b', 'a\\b', ''])('useDPoPNonceError refuses the nonce %j (RFC 9449 §8.1 1*NQCHAR)', (nonce) => {
    expect(() => useDPoPNonceError(nonce, { algorithms: ['ES256'] })).toThrow(TypeError);
    expect(() => tokenError('use_dpop_nonce', 'x', { dpopNonce: nonce })).toThrow(TypeError);
  });
  it('keeps a nonce of NQCHARs', () => {
    expect(useDPoPNonceError('eyJ7S_zG.2-~', { algorithms: ['ES256'] }).cause).toMatchObject({ headers: { 'DPoP-Nonce': 'eyJ7S_zG.2-~' } });
  });
  it.each([[['a"b']], [['c\\']], [['a b']], [[]]])('dpopChallenge refuses acrValues %j', (acrValues: string[]) => {
    expect(() => dpopChallenge({ algorithms: ['ES256'], error: 'insufficient_user_authentication', acrValues })).toThrow(TypeError);
  });
  it('dpopChallenge refuses an error code with a quote and a fractional maxAge', () => {
    expect(() => dpopChallenge({ algorithms: ['ES256'], error: 'x", y="z' })).toThrow(TypeError);
    expect(() => dpopChallenge({ algorithms: ['ES256'], maxAge: 1.5 })).toThrow(TypeError);
  });
  it.each([[['ES256", error="invalid_token']], [['ES256 PS256']], [['ES\\256']], [['令牌']], [['']], [[]]])('dpopChallenge refuses the algorithms %j (RFC 9449 §7.1: a space-delimited list in one quoted string)', (algorithms: string[]) => {
    expect(() => dpopChallenge({ algorithms })).toThrow(TypeError);
    expect(() => useDPoPNonceError('n', { algorithms })).toThrow(TypeError);
  });
  it('names every algorithm it is given in algs', () => {
    expect(dpopChallenge({ algorithms: ['ES256', 'EdDSA'], error: 'invalid_dpop_proof' })).toBe('DPoP error="invalid_dpop_proof", algs="ES256 EdDSA"');
  });
  it.each([
    ['WWW-Authenticate', 'Bearer\r\nSet-Cookie: pwn=1'],
    ['WWW-Authenticate', 'Bearer error_description="令牌"'],
    ['Bad Name', 'x'],
  ])('OAuth2Error refuses the header %s: %j', (name, value) => {
    expect(() => new OAuth2Error({ code: 'ERR_INVALID_TOKEN', status: 401, message: 'x', headers: { [name]: value } })).toThrow(TypeError);
  });
});
