// Whatever a client sends as a token, and whatever claims a trusted issuer signs, the verifier
// answers a principal or a 401 with one of the fixed descriptions: never a 5xx, never an echo
// (docs/contract.md#reading-the-authorization-header).
import { generateKeyPair, SignJWT } from 'jose';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_REFUSALS, type TokenVerifier, type JwtPrincipal } from '../../src/index.js';
import { outcomeOf } from '../support/refusal.js';
import { VERIFICATION_PATHS } from '../support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const DESCRIPTIONS: readonly string[] = Object.values(TOKEN_REFUSALS);
// RFC 6749 §3.3 scope-token characters.
const SCOPE_CHAR = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

let keys: Awaited<ReturnType<typeof generateKeyPair>>;
let privateKey: CryptoKey;
beforeAll(async () => {
  keys = await generateKeyPair('ES256');
  privateKey = keys.privateKey;
});

const segment = fc.oneof(fc.base64String(), fc.string(), fc.constant(''));
const tokenLike = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.tuple(segment, segment, segment).map((parts) => parts.join('.')),
  fc.tuple(fc.json(), fc.json(), segment).map(([h, p, s]) => `${Buffer.from(h).toString('base64url')}.${Buffer.from(p).toString('base64url')}.${s}`),
);

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  describe('refusals (property)', () => {
    let verify: TokenVerifier<JwtPrincipal>;
    beforeAll(() => {
      verify = jwtVerifier({ key: keys.publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE });
    });

    it('any token a client can send is refused with a fixed description that does not echo it', async () => {
      await fc.assert(
        fc.asyncProperty(tokenLike, async (token) => {
          const outcome = await outcomeOf(verify(token));
          expect(outcome.kind).toBe('refused');
          if (outcome.kind !== 'refused') return;
          expect(DESCRIPTIONS).toContain(outcome.description);
          if (token.length > 3) expect(outcome.description).not.toContain(token);
        }),
        { numRuns: 300 },
      );
    });

    it('any claims the issuer signs give a principal whose scopes are exactly the scope tokens, or a fixed refusal', async () => {
      const scopeClaim = fc.oneof(
        fc.constant(undefined),
        fc.string({ maxLength: 40 }),
        fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }).map((tokens) => tokens.join(' ')),
        fc.anything(),
      );
      let accepted = 0;
      const scpClaim = fc.oneof(fc.constant(undefined), fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.anything()), { maxLength: 4 }), fc.anything());
      await fc.assert(
        fc.asyncProperty(scopeClaim, scpClaim, fc.option(fc.string(), { nil: undefined }), fc.integer({ min: -100, max: 100 }), async (scope, scp, sub, lifetime) => {
          const now = Math.floor(Date.now() / 1000);
          const payload = { iss: ISSUER, aud: AUDIENCE, exp: now + lifetime, ...(sub === undefined ? {} : { sub }), ...(scope === undefined ? {} : { scope }), ...(scp === undefined ? {} : { scp }) };
          const token = await new SignJWT(payload as Record<string, unknown>).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
          const outcome = await outcomeOf(verify(token));
          if (outcome.kind === 'refused') {
            expect(DESCRIPTIONS).toContain(outcome.description);
            return;
          }
          expect(outcome.kind).toBe('accepted');
          if (outcome.kind !== 'accepted') return;
          const { principal } = outcome;
          accepted++;
          expect(lifetime).toBeGreaterThan(0);
          expect(principal.subject).toBe(sub);
          for (const token of principal.scopes) expect(token).toMatch(SCOPE_CHAR);
          const source = scope !== undefined ? scope : scp;
          const expected = source === undefined || source === '' ? [] : typeof source === 'string' ? source.split(' ') : source;
          expect(principal.scopes).toEqual(expected);
        }),
        { numRuns: 300 },
      );
      expect(accepted).toBeGreaterThan(10); // the accepting branch was exercised, not only refusals
    });
  });
});
