import { passwordRequestForm, passwordRequestFormStrict } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { readers } from '../../../core/test/support/readers-router.js';

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
/** Core's readers, one of each kind and mode. */
export { readers };

export type ReaderName = keyof typeof readers;
export const BEARER_READERS = ['password', 'code'] as const;

const token = z.object({ token: z.string().nullable() });
const authorization = z.object({ authorization: z.string().nullable() });
const get = (path: `/${string}`) => ({ openapi: { method: 'GET', path } }) as const;
const post = (path: `/${string}`) => ({ openapi: { method: 'POST', path } }) as const;
const form = z.object({
  grant_type: z.string().nullable(),
  username: z.string(),
  password: z.string(),
  scope: z.string(),
  scopes: z.array(z.string()),
  client_id: z.string().nullable(),
  client_secret: z.string().nullable(),
});

/** One procedure per reader (answering what it put on ctx), two token endpoints, and plain JSON and GET routes. */
export const httpRouter = t.router({
  password: t.procedure.meta(get('/password')).use(readers.password).input(z.void()).output(token).query(({ ctx }) => ({ token: ctx.token })),
  passwordOptional: t.procedure.meta(get('/passwordOptional')).use(readers.passwordOptional).input(z.void()).output(token).query(({ ctx }) => ({ token: ctx.token })),
  code: t.procedure.meta(get('/code')).use(readers.code).input(z.void()).output(token).query(({ ctx }) => ({ token: ctx.token })),
  codeOptional: t.procedure.meta(get('/codeOptional')).use(readers.codeOptional).input(z.void()).output(token).query(({ ctx }) => ({ token: ctx.token })),
  base: t.procedure.meta(get('/base')).use(readers.base).input(z.void()).output(authorization).query(({ ctx }) => ({ authorization: ctx.authorization })),
  baseOptional: t.procedure.meta(get('/baseOptional')).use(readers.baseOptional).input(z.void()).output(authorization).query(({ ctx }) => ({ authorization: ctx.authorization })),
  token: t.procedure.meta(post('/token')).input(passwordRequestForm).output(form).mutation(({ input }) => input),
  tokenStrict: t.procedure.meta(post('/token/strict')).input(passwordRequestFormStrict).output(form).mutation(({ input }) => input),
  sum: t.procedure.meta(post('/sum')).input(z.object({ a: z.number(), b: z.number() })).output(z.number()).mutation(({ input }) => input.a + input.b),
  ping: t.procedure.meta(post('/ping')).input(z.void()).output(z.string()).mutation(() => 'pong'),
  search: t.procedure.meta(get('/search')).input(z.object({ q: z.string() })).output(z.string()).query(({ input }) => input.q),
});

export type HttpRouter = typeof httpRouter;
