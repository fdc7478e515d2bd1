/**
 * Server-issued DPoP nonces (RFC 9449 §8, §9) that need no shared state: each is an HMAC of a
 * secret every instance holds and the current time step, so any instance can issue one and check
 * one another issued. See docs/contract.md#dpop.
 * @module
 */
import { base64url } from 'jose';

/** The shortest secret accepted: 256 bits, the HMAC-SHA-256 key size. */
const MIN_SECRET_BYTES = 32;

/**
 * Issues and checks DPoP nonces. A nonce is accepted during the time step it was issued in and
 * the next one, so a client that fetched one just before a step ends still gets through.
 *
 * @example
 * ```ts
 * const nonces = dpopNonces({ secret: process.env.DPOP_NONCE_SECRET! });
 * res.setHeader('DPoP-Nonce', await nonces.current());
 * ```
 */
export interface DPoPNonces {
  /** The nonce of the current time step. */
  current(): Promise<string>;
  /** Whether `nonce` is the current step's or the previous step's. */
  check(nonce: string): Promise<boolean>;
}

/**
 * What {@link dpopNonces} is made of.
 *
 * @example
 * ```ts
 * const options: DPoPNoncesOptions = { secret: crypto.getRandomValues(new Uint8Array(32)), step: 300 };
 * ```
 */
export interface DPoPNoncesOptions {
  /** The secret every instance shares: at least 32 bytes (a string counts its UTF-8 bytes). */
  secret: string | Uint8Array;
  /** How long a time step lasts, in seconds (default 300); a nonce lives one to two steps. */
  step?: number;
  /** The clock, in seconds since the epoch (for tests). */
  now?: () => number;
}

/**
 * Stateless rotating DPoP nonces: `base64url(HMAC-SHA-256(secret, step))`. Every instance given
 * the same secret issues the same nonce in a step and accepts the current and the previous one,
 * without talking to each other.
 *
 * @example
 * ```ts
 * const verifyProof = dpopProofVerifier({ nonces: dpopNonces({ secret: process.env.DPOP_NONCE_SECRET! }) });
 * ```
 */
export function dpopNonces(options: DPoPNoncesOptions): DPoPNonces {
  const secret = typeof options.secret === 'string' ? new TextEncoder().encode(options.secret) : options.secret;
  if (!(secret instanceof Uint8Array) || secret.byteLength < MIN_SECRET_BYTES) {
    throw new TypeError(`dpopNonces: \`secret\` must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  const step = options.step ?? 300;
  if (!Number.isFinite(step) || step < 1) throw new TypeError('dpopNonces: `step` must be at least 1 second');
  const now = options.now ?? (() => Date.now() / 1000);
  const key = crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  // The last few steps' nonces, so that checking costs no HMAC once a step's nonce is known.
  const byStep = new Map<number, Promise<string>>();
  const nonceOf = (index: number): Promise<string> => {
    let nonce = byStep.get(index);
    if (nonce === undefined) {
      nonce = key
        .then((k) => crypto.subtle.sign('HMAC', k, new TextEncoder().encode(`dpop-nonce.${index}`)))
        .then((mac) => base64url.encode(new Uint8Array(mac)));
      byStep.set(index, nonce);
      for (const old of byStep.keys()) if (old < index - 2 || old > index + 2) byStep.delete(old);
    }
    return nonce;
  };
  const stepIndex = () => Math.floor(now() / step);
  return {
    current: () => nonceOf(stepIndex()),
    async check(nonce) {
      const index = stepIndex();
      const [current, previous] = await Promise.all([nonceOf(index), nonceOf(index - 1)]);
      return equal(nonce, current) || equal(nonce, previous);
    },
  };
}

/** Compares in time that does not depend on where the strings differ (a nonce is not guessable bit by bit). */
function equal(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
