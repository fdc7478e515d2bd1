import { TOKEN_REFUSALS } from './errors.js';
import { Refusal, type JwsHeader } from './jws.js';

/**
 * What {@link checkClaims} holds a claim set to: the options of `jwtVerifier`, normalised once.
 */
export interface ClaimRules {
  readonly issuers: readonly string[];
  readonly audiences: readonly string[];
  /** Seconds. */
  readonly clockTolerance: number;
  /** Seconds after `iat`; `iat` is then required. */
  readonly maxTokenAge?: number;
  /** The `typ` header required (compared as a media type, RFC 7515 §4.1.9). */
  readonly typ?: string;
}

const mediaType = (value: string) => {
  const lower = value.toLowerCase();
  return lower.includes('/') ? lower : `application/${lower}`;
};

const numericDate = (claims: Record<string, unknown>, claim: string): number | undefined => {
  const value = claims[claim];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Refusal(TOKEN_REFUSALS.invalid);
  return value;
};

/**
 * `aud` as RFC 7519 §4.1.3 has it when it is not a single string: an array of strings. One whose
 * entries are not all strings is malformed (jose's own check would accept `[aud, 42]`).
 */
const isStringArray = (value: unknown): value is string[] => {
  if (!Array.isArray(value)) return false;
  for (const entry of value) if (typeof entry !== 'string') return false;
  return true;
};

/**
 * Checks a verified JWT's claim set (RFC 7519 §4.1, RFC 9068 §4) in the order jose does, with one
 * fixed refusal per cause: `typ` (when required); the presence of `iss`, `aud`, `iat` (with
 * `maxTokenAge`), `sub` and `exp`; `iss` a string (else the token is malformed) that is one of
 * the issuers; `aud` a string or an array of strings (else malformed) naming one of the audiences; `jti` a string when present; `nbf`, `exp` and the token's
 * age against the clock, within `clockTolerance` (each a finite number when present). So every
 * registered claim a principal's `claims` hold has the type `JWTPayload` gives it (`sub` is
 * checked by the verifier). Every signature step shares it, so a claim is judged the same on
 * every runtime.
 */
export function checkClaims(header: JwsHeader, claims: Record<string, unknown>, rules: ClaimRules): void {
  if (rules.typ !== undefined && (typeof header.typ !== 'string' || mediaType(header.typ) !== mediaType(rules.typ))) {
    throw new Refusal(TOKEN_REFUSALS.type);
  }
  for (const claim of rules.maxTokenAge === undefined ? PRESENT : PRESENT_WITH_IAT) {
    if (!Object.hasOwn(claims, claim)) throw new Refusal(TOKEN_REFUSALS.missingClaim);
  }
  // A claim of the wrong type is a malformed token, not one of another issuer or for another
  // audience: those refusals say the claim was read, and `anyOf` passes over another issuer's
  // token for the refusal of the reader it was meant for.
  if (typeof claims.iss !== 'string') throw new Refusal(TOKEN_REFUSALS.invalid);
  if (!rules.issuers.includes(claims.iss)) throw new Refusal(TOKEN_REFUSALS.issuer);
  const { aud } = claims;
  if (typeof aud !== 'string' && !isStringArray(aud)) throw new Refusal(TOKEN_REFUSALS.invalid);
  const named = typeof aud === 'string' ? rules.audiences.includes(aud) : rules.audiences.some((audience) => aud.includes(audience));
  if (!named) throw new Refusal(TOKEN_REFUSALS.audience);
  // The principal's claims are typed `JWTPayload`: `jti` is a string there, so it is one here.
  if (claims.jti !== undefined && typeof claims.jti !== 'string') throw new Refusal(TOKEN_REFUSALS.invalid);

  // To the millisecond: a NumericDate may be fractional (RFC 7519 §2), and a whole second of
  // slack would accept `exp: T + 0.9` until T + 1.
  const now = Date.now() / 1000;
  const tolerance = rules.clockTolerance;
  const iat = numericDate(claims, 'iat');
  const nbf = numericDate(claims, 'nbf');
  if (nbf !== undefined && nbf > now + tolerance) throw new Refusal(TOKEN_REFUSALS.notYetValid);
  const exp = numericDate(claims, 'exp');
  if (exp !== undefined && exp <= now - tolerance) throw new Refusal(TOKEN_REFUSALS.expired);
  if (rules.maxTokenAge !== undefined) {
    const age = now - iat!;
    // Refused from `iat + maxTokenAge` on, as from `exp` on above: the principal's `expiresAt`
    // is that instant, when a cache and a stream stop, so the token is refused there too.
    if (age - tolerance >= rules.maxTokenAge) throw new Refusal(TOKEN_REFUSALS.tooOld);
    if (age < -tolerance) throw new Refusal(TOKEN_REFUSALS.notYetValid);
  }
}

// The claims every access token must carry (`iss` and `aud` because both are always checked).
const PRESENT = ['iss', 'aud', 'sub', 'exp'] as const;
const PRESENT_WITH_IAT = ['iss', 'aud', 'iat', 'sub', 'exp'] as const;
