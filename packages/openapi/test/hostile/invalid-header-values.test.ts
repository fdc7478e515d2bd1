/**
 * A refusal whose headers no HTTP field can carry (CR/LF, a character beyond Latin-1, a DPoP nonce
 * outside RFC 9449 §8.1's NQCHAR, an acr value a quoted string cannot hold) is a fault of the
 * server on every face alike: 500, none of its headers sent, the server still answering (the
 * REST Node handler's promise never rejects: an unhandled rejection would end a Node process).
 */
import { OAuth2Error } from '@trpc-oauth2/core/errors';
import { dpopChallenge, useDPoPNonceError } from '@trpc-oauth2/core/dpop';
import { tokenError } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, routeOf, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC.meta<OpenApiMeta>().create();
const refuse = (path: `/${string}`, refusal: () => Error) =>
  t.procedure.meta({ openapi: { method: 'GET', path } }).input(z.void()).output(z.object({ ok: z.boolean() })).query(() => {
    throw refusal();
  });
const router = t.router({
  nonceCrlf: refuse('/nonce-crlf', () => useDPoPNonceError('n\r\nSet-Cookie: pwn=1', { algorithms: ['ES256'] })),
  nonceCjk: refuse('/nonce-cjk', () => useDPoPNonceError('令牌', { algorithms: ['ES256'] })),
  nonceQuote: refuse('/nonce-quote', () => useDPoPNonceError('a b"c', { algorithms: ['ES256'] })),
  tokenNonce: refuse('/token-nonce', () => tokenError('use_dpop_nonce', 'x', { dpopNonce: 'n\r\nSet-Cookie: pwn=1' })),
  ownHeader: refuse('/own-header', () =>
    new OAuth2Error({ code: 'ERR_INVALID_TOKEN', status: 401, message: 'x', headers: { 'WWW-Authenticate': 'Bearer error_description="令牌"' } }).toTRPCError(),
  ),
  acrQuote: refuse('/acr-quote', () =>
    new OAuth2Error({
      code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION',
      status: 401,
      message: 'x',
      headers: { 'WWW-Authenticate': dpopChallenge({ algorithms: ['ES256'], error: 'insufficient_user_authentication', acrValues: ['a"b'] }) },
    }).toTRPCError(),
  ),
  ok: t.procedure.meta({ openapi: { method: 'GET', path: '/ok' } }).input(z.void()).output(z.object({ ok: z.boolean() })).query(() => ({ ok: true })),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

const refusals = ['nonceCrlf', 'nonceCjk', 'nonceQuote', 'tokenNonce', 'ownHeader', 'acrQuote'] as const;

describe.each(FACES)('on the %s face', (face) => {
  it.each(refusals)('%s is a 500 without the refusal\'s headers, and the server keeps answering', async (procedure) => {
    const { url, method } = routeOf(faces[face], procedure);
    const response = await fetch(url, { method, signal: AbortSignal.timeout(2000) });
    await response.text();
    expect(response.status).toBe(500);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(response.headers.get('dpop-nonce')).toBeNull();
    expect(response.headers.get('set-cookie')).toBeNull();
    const ok = await fetch(routeOf(faces[face], 'ok').url, { signal: AbortSignal.timeout(2000) });
    expect(ok.status).toBe(200);
  });
});

describe.each(FACES)("the application's responseMeta setting a header Node refuses, on %s", (face) => {
  let running: RunningFace;
  beforeAll(async () => {
    running = (await serveFaces(router, [face], { responseMeta: () => ({ headers: { 'x-note': 'café 中' } }) }))[face];
  });
  afterAll(() => running.close());
  it('is answered 500, never left unanswered', async () => {
    const response = await fetch(routeOf(running, 'ok').url, { signal: AbortSignal.timeout(2000) });
    await response.text();
    expect(response.status).toBe(500);
  });
});
