/**
 * docs/contract.md#challenges and #subscriptions: the error a stream ends with when its token
 * expires is the reader's own `invalid_token` refusal, with its challenge options: a reader
 * created with `resourceMetadata` names it (`resource_metadata="M"`), as the refusal of a token
 * that arrives expired does; a reader's `makeInvalidTokenError` builds it; a reader's
 * `makeTokenExpiredError` replaces it. Through `createCaller`, the procedure's whole chain.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getOAuth2Error, oauth2PasswordBearer, type Principal } from '../src/index.js';
import { invalidTokenError, tokenExpiredError } from '../src/errors-entry.js';

const M = 'https://api.example.test/.well-known/oauth-protected-resource/api';
const t = initTRPC.context<{ headers?: Record<string, string> }>().create();

/** `short` expires 300 ms from now; `expired` is refused as a verifier refuses an expired token. */
const verify = async (token: string): Promise<Principal> => {
  if (token === 'short') return { scopes: [], expiresAt: Date.now() / 1000 + 0.3 };
  if (token === 'expired') throw invalidTokenError('The access token expired');
  throw invalidTokenError('The access token is invalid');
};

function router(options: Omit<Parameters<typeof oauth2PasswordBearer>[0], 'tokenUrl' | 'verify'>) {
  const auth = oauth2PasswordBearer({ tokenUrl: '/token', verify, ...options });
  return t.router({
    feed: t.procedure.use(auth).input(z.void()).subscription(async function* () {
      for (let i = 0; ; i++) {
        yield i;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }),
    me: t.procedure.use(auth).input(z.void()).query(() => 'ok'),
  });
}

/** The error the stream of `feed` ends with, opened with `token`. */
async function streamEnd(built: ReturnType<typeof router>, token: string): Promise<unknown> {
  const stream = await built.createCaller({ headers: { authorization: `Bearer ${token}` } }).feed();
  try {
    for await (const _ of stream) void _;
  } catch (error) {
    return error;
  }
  throw new Error('the stream ended without an error');
}

const challengeOf = (error: unknown) => getOAuth2Error(error)?.headers['WWW-Authenticate'];

describe("the error a stream ends with at its token's expiry", () => {
  it('names the reader\'s resource metadata, as the refusal of a token that arrives expired does', async () => {
    const built = router({ resourceMetadata: M });
    const expected = `Bearer error="invalid_token", error_description="The access token expired", resource_metadata="${M}"`;
    expect(challengeOf(await built.createCaller({ headers: { authorization: 'Bearer expired' } }).me().catch((error: unknown) => error))).toBe(expected);
    const ended = await streamEnd(built, 'short');
    expect(ended).toBeInstanceOf(TRPCError);
    expect(getOAuth2Error(ended)?.code).toBe('ERR_INVALID_TOKEN');
    expect(challengeOf(ended)).toBe(expected);
  });

  it("is built by the reader's makeInvalidTokenError", async () => {
    const built = router({ makeInvalidTokenError: (description) => invalidTokenError(`[api] ${description}`, { resourceMetadata: M }) });
    expect(challengeOf(await streamEnd(built, 'short'))).toBe(
      `Bearer error="invalid_token", error_description="[api] The access token expired", resource_metadata="${M}"`,
    );
  });

  it("is the reader's makeTokenExpiredError's when it has one", async () => {
    const built = router({ resourceMetadata: M, makeTokenExpiredError: () => tokenExpiredError() });
    expect(challengeOf(await streamEnd(built, 'short'))).toBe('Bearer error="invalid_token", error_description="The access token expired"');
  });
});
