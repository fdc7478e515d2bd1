// Whatever value a trusted issuer signs for one registered claim (RFC 7519 §4.1, RFC 9068, RFC
// 7800), the refusal names what is wrong: a value of the wrong type is a malformed token, never
// "issued by another issuer", "meant for another audience" or "expired"; only a value of the
// right type may be judged against the issuer, the audience or the clock
// (docs/contract.md#verified-readers).
import fc from 'fast-check';
import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { TOKEN_REFUSALS } from '../../src/index.js';
import { outcomeOf } from '../support/refusal.js';
import { VERIFICATION_PATHS } from '../support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const keys = await generateKeyPair('ES256');
const now = () => Math.floor(Date.now() / 1000);

/** Values of every JSON kind, and those a claim is compared with. */
const anyKind = fc.oneof(
  fc.integer({ min: -2e9, max: 4e9 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(ISSUER, AUDIENCE, '', 'read write'),
  fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
  fc.constant([AUDIENCE]),
  fc.constant([AUDIENCE, 42]),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.constant({ jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' }),
);
const CLAIMS = ['iss', 'aud', 'exp', 'nbf', 'iat', 'sub', 'jti', 'scope', 'cnf'] as const;
type Claim = (typeof CLAIMS)[number];

const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The descriptions a token whose `claim` is `value` (every other claim valid) may be answered
 * with: `accepted`, or a refusal. A value of the wrong type for the claim allows only the
 * refusal that says it is malformed.
 */
function allowed(claim: Claim, value: unknown): readonly string[] {
  const { invalid } = TOKEN_REFUSALS;
  switch (claim) {
    case 'iss':
      return isString(value) ? [value === ISSUER ? 'accepted' : TOKEN_REFUSALS.issuer] : [invalid];
    case 'aud':
      if (isString(value)) return [value === AUDIENCE ? 'accepted' : TOKEN_REFUSALS.audience];
      if (Array.isArray(value) && value.every(isString)) return [value.includes(AUDIENCE) ? 'accepted' : TOKEN_REFUSALS.audience];
      return [invalid];
    case 'exp':
      return isNumber(value) ? [value > now() + 1 ? 'accepted' : TOKEN_REFUSALS.expired, ...(Math.abs(value - now()) < 5 ? ['accepted', TOKEN_REFUSALS.expired] : [])] : [invalid];
    case 'nbf':
      return isNumber(value) ? [value <= now() ? 'accepted' : TOKEN_REFUSALS.notYetValid, ...(Math.abs(value - now()) < 5 ? ['accepted', TOKEN_REFUSALS.notYetValid] : [])] : [invalid];
    case 'iat':
      return isNumber(value) ? ['accepted'] : [invalid];
    case 'sub':
      return isString(value) && value !== '' ? ['accepted'] : [invalid];
    case 'jti':
      return isString(value) ? ['accepted'] : [invalid];
    case 'scope':
      return isString(value) ? ['accepted', TOKEN_REFUSALS.scope] : [TOKEN_REFUSALS.scope];
    case 'cnf':
      return isObject(value) ? ['accepted', TOKEN_REFUSALS.confirmation] : [TOKEN_REFUSALS.confirmation];
  }
}

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  const verify = jwtVerifier({ key: keys.publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE });

  it('a registered claim of the wrong type is refused as malformed, one of the right type by what it says (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CLAIMS), anyKind, async (claim, value) => {
        const payload: Record<string, unknown> = { iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'me', exp: now() + 600, [claim]: value };
        const token = await new SignJWT(payload).setProtectedHeader({ alg: 'ES256' }).sign(keys.privateKey);
        const outcome = await outcomeOf(verify(token));
        const answered = outcome.kind === 'accepted' ? 'accepted' : outcome.kind === 'refused' ? outcome.description : outcome.kind;
        expect(allowed(claim, value)).toContain(answered);
      }),
      { numRuns: 400 },
    );
  });

  it.each<[string, unknown]>([
    ['a number', 42],
    ['an array naming the issuer', [ISSUER]],
    ['an object', { url: ISSUER }],
    ['null', null],
  ])('an iss that is %s is a malformed token, not another issuer\'s', async (_kind, iss) => {
    const token = await new SignJWT({ iss, aud: AUDIENCE, sub: 'alice', exp: now() + 600 } as Record<string, unknown>).setProtectedHeader({ alg: 'ES256' }).sign(keys.privateKey);
    expect(await outcomeOf(verify(token))).toMatchObject({ kind: 'refused', description: TOKEN_REFUSALS.invalid });
  });
});
