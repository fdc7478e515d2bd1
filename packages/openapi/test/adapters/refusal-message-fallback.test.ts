/**
 * A resource server's refusal whose description has no RFC 6750 `error_description` character left
 * (text in another script) answers with its fixed message on every face, never an empty one (the
 * REST body's `message`, the tRPC error's `message`), and a challenge without `error_description`.
 * docs/contract.md#step-up-authentication, docs/contract.md#dpop.
 */
import { insufficientUserAuthenticationError, invalidTokenError } from '@trpc-oauth2/core/errors';
import { useDPoPNonceError } from '@trpc-oauth2/core/dpop';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, call, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC.meta<OpenApiMeta>().create();
const out = z.object({ ok: z.boolean() });
const router = t.router({
  stepUp: t.procedure
    .meta({ openapi: { method: 'GET', path: '/step-up' } })
    .input(z.void())
    .output(out)
    .query(() => {
      throw insufficientUserAuthenticationError({ acrValues: ['urn:example:mfa'] }, { description: '认证级别不足' });
    }),
  nonce: t.procedure
    .meta({ openapi: { method: 'GET', path: '/nonce' } })
    .input(z.void())
    .output(out)
    .query(() => {
      throw useDPoPNonceError('n-1', { algorithms: ['ES256'], description: '需要随机数' });
    }),
  expired: t.procedure
    .meta({ openapi: { method: 'GET', path: '/expired' } })
    .input(z.void())
    .output(out)
    .query(() => {
      throw invalidTokenError('令牌已过期');
    }),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

describe.each(FACES)('on the %s face', (face) => {
  it.each([
    ['stepUp', 'A different authentication level is required', 'Bearer error="insufficient_user_authentication", acr_values="urn:example:mfa"'],
    ['nonce', 'Resource server requires nonce in DPoP proof', 'DPoP error="use_dpop_nonce", algs="ES256"'],
    ['expired', 'Could not validate credentials', 'Bearer error="invalid_token"'],
  ])('%s with a foreign description answers 401 with its fixed message', async (procedure, message, challenge) => {
    const answer = await call(faces[face], procedure);
    expect(answer.status).toBe(401);
    expect(answer.error?.message).toBe(message);
    expect(answer.challenge).toBe(challenge);
  });
});
