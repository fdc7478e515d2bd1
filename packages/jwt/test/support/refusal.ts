import { getOAuth2Error } from '@trpc-oauth2/core';
import { TRPCError } from '@trpc/server';
import { expect } from 'vitest';
import { VerifierUnavailableError } from '../../src/index.js';

/** What a verification ended with: the principal, a 401 refusal with its description, or a 503. */
export type Outcome<T> =
  | { kind: 'accepted'; principal: T }
  | { kind: 'refused'; description: string; challenge: string }
  | { kind: 'unavailable'; code: string };

/** Runs a verification and names its outcome; any other error fails the test. */
export async function outcomeOf<T>(verification: Promise<T>): Promise<Outcome<T>> {
  try {
    return { kind: 'accepted', principal: await verification };
  } catch (error) {
    const refusal = getOAuth2Error(error);
    if (refusal) {
      expect(refusal.status).toBe(401);
      expect(refusal.error).toBe('invalid_token');
      return { kind: 'refused', description: refusal.message, challenge: refusal.headers['WWW-Authenticate']! };
    }
    if (error instanceof TRPCError && error.cause instanceof VerifierUnavailableError) {
      expect(error.code).toBe('SERVICE_UNAVAILABLE');
      return { kind: 'unavailable', code: error.cause.code };
    }
    throw error;
  }
}

/** The description of a 401 refusal; fails the test for any other outcome. */
export async function refusalOf(verification: Promise<unknown>): Promise<string> {
  const outcome = await outcomeOf(verification);
  if (outcome.kind !== 'refused') throw new Error(`expected a refusal, got ${JSON.stringify(outcome)}`);
  return outcome.description;
}
