/**
 * docs/contract.md#openapi, "Your own schemes": on a `protect: true` operation whose reader refuses
 * a request without its token, the application's own scheme is listed with the reader's
 * requirement, never alone. OpenAPI reads listed requirements as alternatives (one suffices): a
 * document listing `{ ApiKey: [] }` on its own allows a call the reader answers 401. Checked over
 * the REST handler.
 */
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { TRPCError, initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { serveFace, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
/** A header of the request on ctx, a Node request's or a Fetch one's. */
const headerOf = (req: unknown, name: string) => {
  const headers = (req as { headers?: Headers | Record<string, unknown> } | undefined)?.headers;
  return headers instanceof Headers ? headers.get(name) : headers?.[name];
};
const auth = oauth2PasswordBearer({ tokenUrl: '/api/token', scopes: { me: 'Read you' }, verify: async (token) => ({ scopes: token.split(',') }) });
/** The application's own check of its ApiKey scheme, the one `protect: true` documents. */
const apiKey = t.middleware(({ ctx, next }) => {
  if (headerOf(ctx.req, 'x-api-key') !== 'k1') throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Authorization not provided' });
  return next();
});
const router = t.router({
  me: t.procedure
    .meta({ openapi: { method: 'GET', path: '/me', protect: true } })
    .use(apiKey)
    .use(auth)
    .use(auth.requireScopes('me'))
    .input(z.void())
    .output(z.string())
    .query(() => 'ok'),
});
const securitySchemes = { ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } as const;

let server: RunningFace;
beforeAll(async () => {
  server = await serveFace(router, 'rest-standalone');
});
afterAll(async () => {
  await server.close();
});

/** Whether a call authenticating with `sent` meets one of the listed requirements (OpenAPI: one suffices). */
const allowedBy = (security: readonly Record<string, string[]>[], sent: readonly string[]) =>
  security.some((requirement) => Object.keys(requirement).every((name) => sent.includes(name)));

it('allows exactly the calls the REST handler answers', async () => {
  const document = generateOAuth2OpenApiDocument(router, { title: 'own', version: '1', baseUrl: `${server.origin}/api`, securitySchemes }) as any;
  const security = document.paths['/me'].get.security as Record<string, string[]>[];
  expect(security).toEqual([{ OAuth2PasswordBearer: ['me'], ApiKey: [] }]);
  const calls: { sent: string[]; headers: Record<string, string> }[] = [
    { sent: ['ApiKey'], headers: { 'x-api-key': 'k1' } },
    { sent: ['OAuth2PasswordBearer'], headers: { authorization: 'Bearer me' } },
    { sent: ['ApiKey', 'OAuth2PasswordBearer'], headers: { 'x-api-key': 'k1', authorization: 'Bearer me' } },
  ];
  for (const { sent, headers } of calls) {
    const response = await fetch(`${server.origin}/api/me`, { headers });
    expect({ sent, allowed: allowedBy(security, sent) }).toEqual({ sent, allowed: response.status === 200 });
  }
});
