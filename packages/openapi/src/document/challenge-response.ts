/**
 * Writes one status's refusals as a Response Object, with the `WWW-Authenticate` header a client
 * will see.
 * @module
 */
import { DPOP_NONCE_HEADER } from '@trpc-oauth2/core/dpop';
import type { ResponseObject } from './document-types.js';
import type { SecurityChallenge } from './security-challenges.js';

const unique = <$T>(values: readonly $T[]) => [...new Set(values)];

/** The `DPoP-Nonce` header of a `use_dpop_nonce` refusal (RFC 9449 §8), a resource's or a token endpoint's. */
export const DOCUMENTED_DPOP_NONCE = {
  [DPOP_NONCE_HEADER]: {
    description: 'Sent with `use_dpop_nonce`: the nonce the next DPoP proof must carry (RFC 9449 §8)',
    required: false,
    schema: { type: 'string' },
  },
};

/**
 * The Response Object for one status of `challenges` (all of that status): their messages as
 * the description, and the `WWW-Authenticate` header with every challenge that may be sent
 * (required when each refusal sends one). `content` is the error body's content.
 */
export function challengeResponse(challenges: readonly SecurityChallenge[], content: Record<string, unknown>): ResponseObject {
  const sent = unique(challenges.flatMap((refusal) => (refusal.challenge === undefined ? [] : [refusal.challenge])));
  const description = unique(challenges.map((refusal) => refusal.description)).join('; ');
  if (sent.length === 0) return { description, content };
  return {
    description,
    headers: {
      'WWW-Authenticate': {
        description: 'The authentication challenge (RFC 6750 §3).',
        required: challenges.every((refusal) => refusal.challenge !== undefined),
        schema: { type: 'string', examples: sent },
      },
      ...(challenges.some((refusal) => refusal.nonce === true) ? DOCUMENTED_DPOP_NONCE : {}),
    },
    content,
  };
}
