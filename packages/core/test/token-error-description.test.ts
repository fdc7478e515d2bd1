/**
 * docs/contract.md#token-responses: descriptions keep to RFC 6749 §5.2's `error_description`
 * characters, `1*( %x20-21 / %x23-5B / %x5D-7E )`, at least one of them. A description with
 * none left but spaces (text in another script) is `The request was refused (<error>)`, in
 * `tokenError`'s message, in `tokenErrorResponse`'s body and in `oauth2ErrorData`, never `""`.
 */
import { TRPCError } from '@trpc/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OAuth2Error, insufficientUserAuthenticationError, invalidTokenError } from '../src/errors.js';
import { oauth2ErrorData, tokenError, tokenErrorResponse, type TokenErrorCode } from '../src/token-endpoint/index.js';

const ERROR_DESCRIPTION = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;

const CODES: readonly TokenErrorCode[] = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'unsupported_token_type',
  'invalid_dpop_proof',
  'use_dpop_nonce',
];

describe('a tokenError whose description has no error_description character left', () => {
  it.each(CODES)('%s is described as The request was refused (<its code>)', (code) => {
    const refusal = tokenError(code, '密码错误');
    const description = `The request was refused (${code})`;
    expect(refusal.message).toBe(description);
    expect(tokenErrorResponse(refusal).body).toEqual({ error: code, error_description: description });
    expect(oauth2ErrorData(refusal)).toEqual({ code: `ERR_${code.toUpperCase()}`, error: code, error_description: description, challenge: null, dpopNonce: null });
  });

  it.each([
    ['spaces only', '   '],
    ['spaces between characters it drops', ' 密码 错误 '],
    ['quotes and backslashes', '"\\"'],
    ['nothing', ''],
  ])('with %s too', (_name, text) => {
    expect(tokenErrorResponse(tokenError('invalid_grant', text)).body.error_description).toBe('The request was refused (invalid_grant)');
  });

  it('keeps what is left of a description that has some of its characters', () => {
    expect(tokenErrorResponse(tokenError('invalid_grant', 'Mot de passe erroné: "x"')).body.error_description).toBe('Mot de passe erron: x');
  });

  it('never answers an empty or foreign error_description, whatever the description', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CODES), fc.string({ unit: 'binary' }), (code, text) => {
        const refusal = tokenError(code, text);
        expect(tokenErrorResponse(refusal).body.error_description).toMatch(ERROR_DESCRIPTION);
        expect(oauth2ErrorData(refusal)?.error_description).toMatch(ERROR_DESCRIPTION);
      }),
    );
  });
});

describe('other refusals whose description has no error_description character left', () => {
  it("a handler's own client error is invalid_request, described by that code", () => {
    expect(tokenErrorResponse(new TRPCError({ code: 'CONFLICT', message: '账户已锁定' }))).toMatchObject({
      status: 409,
      body: { error: 'invalid_request', error_description: 'The request was refused (invalid_request)' },
    });
  });

  it('an OAuth2Error without an RFC error is described by its stable code in oauth2ErrorData, by invalid_request over REST', () => {
    const refusal = new OAuth2Error({ code: 'ERR_MALFORMED_BODY', status: 400, message: 'Ungültig' }).toTRPCError();
    expect(oauth2ErrorData(refusal)).toEqual({ code: 'ERR_MALFORMED_BODY', error: null, error_description: 'Ungltig', challenge: null, dpopNonce: null });
    const bare = new OAuth2Error({ code: 'ERR_MALFORMED_BODY', status: 400, message: 'ошибка' }).toTRPCError();
    expect(oauth2ErrorData(bare)).toEqual({ code: 'ERR_MALFORMED_BODY', error: null, error_description: 'The request was refused (ERR_MALFORMED_BODY)', challenge: null, dpopNonce: null });
    expect(tokenErrorResponse(bare).body).toEqual({ error: 'invalid_request', error_description: 'The request was refused (invalid_request)' });
  });

  it("a resource server's refusal falls back to its factory's own description in oauth2ErrorData; its challenge leaves error_description out", () => {
    const stepUp = insufficientUserAuthenticationError({ acrValues: ['urn:example:mfa'] }, { description: '需要多因素认证' });
    expect(oauth2ErrorData(stepUp)?.error_description).toBe('A different authentication level is required');
    expect((stepUp.cause as OAuth2Error).headers['WWW-Authenticate']).toBe('Bearer error="insufficient_user_authentication", acr_values="urn:example:mfa"');
    const expired = invalidTokenError('令牌已过期');
    expect(oauth2ErrorData(expired)?.error_description).toBe('Could not validate credentials');
    expect((expired.cause as OAuth2Error).headers['WWW-Authenticate']).toBe('Bearer error="invalid_token"');
  });
});
