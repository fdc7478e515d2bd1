import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { OAuth2Error, getOAuth2Error, oauth2, oauth2PasswordBearer } from '../src/index.js';

const t = initTRPC.context<{ req?: unknown; headers?: unknown }>().create();
const bearer = oauth2PasswordBearer({ tokenUrl: 'token' });
const base = oauth2();
const router = t.router({
  token: t.procedure.use(bearer).query(({ ctx }) => ctx.token),
  authorization: t.procedure.use(base).query(({ ctx }) => ctx.authorization),
});
const call = t.createCallerFactory(router);

describe('server-side callers', () => {
  it.each([
    { where: 'a Fetch Request on ctx.req', ctx: { req: new Request('http://x', { headers: { Authorization: 'Bearer abc' } }) } },
    { where: 'Node headers on ctx.req', ctx: { req: { headers: { authorization: 'Bearer abc' } } } },
    { where: 'Fetch Headers on ctx.headers', ctx: { headers: new Headers({ authorization: 'Bearer abc' }) } },
    { where: 'a plain record on ctx.headers', ctx: { headers: { authorization: 'Bearer abc' } } },
  ])('read the token from $where', async ({ ctx }) => {
    await expect(call(ctx).token()).resolves.toBe('abc');
  });

  it.each([
    { reader: 'token', status: 401, trpcCode: 'UNAUTHORIZED', headers: { 'WWW-Authenticate': 'Bearer' } },
    { reader: 'authorization', status: 403, trpcCode: 'FORBIDDEN', headers: {} },
  ] as const)('get a TRPCError whose cause carries the $status and its headers ($reader)', async ({ reader, status, trpcCode, headers }) => {
    for (const ctx of [{}, { headers: {} }, { req: { headers: { authorization: '' } } }]) {
      const error = await call(ctx)[reader]().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code).toBe(trpcCode);
      expect((error as TRPCError).message).toBe('Not authenticated');
      const cause = getOAuth2Error(error);
      expect(cause).toBeInstanceOf(OAuth2Error);
      expect(cause).toMatchObject({ code: 'ERR_NOT_AUTHENTICATED', status, headers, message: 'Not authenticated' });
    }
  });

  it('reads a Node header sent twice as its values joined, which is not a bearer token', async () => {
    const ctx = { req: { headers: { authorization: ['Bearer a', 'Bearer b'] } } };
    await expect(call(ctx).token()).resolves.toBe('a, Bearer b');
  });
});

describe('options', () => {
  it('getHeaders says where the headers are', async () => {
    const custom = oauth2PasswordBearer({ tokenUrl: 't', getHeaders: (ctx: { meta: { h: Headers } }) => ctx.meta.h });
    const withMeta = initTRPC.context<{ meta: { h: Headers } }>().create();
    const r = withMeta.router({ q: withMeta.procedure.use(custom).query(({ ctx }) => ctx.token) });
    const ctx = { meta: { h: new Headers({ authorization: 'Bearer from-meta' }) } };
    await expect(withMeta.createCallerFactory(r)(ctx).q()).resolves.toBe('from-meta');
  });

  it('makeNotAuthenticatedError replaces the error, status and headers included', async () => {
    const custom = oauth2PasswordBearer({
      tokenUrl: 't',
      makeNotAuthenticatedError: () =>
        new OAuth2Error({
          code: 'ERR_NOT_AUTHENTICATED',
          status: 401,
          message: 'Log in first',
          headers: { 'WWW-Authenticate': 'Bearer realm="demo"' },
        }).toTRPCError(),
    });
    expect(custom.makeNotAuthenticatedError().message).toBe('Log in first');
    const r = t.router({ q: t.procedure.use(custom).query(({ ctx }) => ctx.token) });
    const error = await t.createCallerFactory(r)({}).q().catch((e: unknown) => e);
    expect((error as TRPCError).message).toBe('Log in first');
    expect(getOAuth2Error(error)?.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="demo"' });
  });

  it('the default factories are exposed for composing', () => {
    expect(bearer.makeNotAuthenticatedError().code).toBe('UNAUTHORIZED');
    expect(base.makeNotAuthenticatedError().code).toBe('FORBIDDEN');
  });
});
