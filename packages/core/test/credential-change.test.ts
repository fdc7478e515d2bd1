/**
 * A credential that changes within a call (a middleware puts another on ctx, or takes it away) or
 * between an outer call and a nested one made with a spread ctx: the resolver never runs with a
 * principal on ctx that the chain did not check against its scopes, and a nested call of another
 * procedure runs as its own credential's principal (one at the same path counts the outer
 * principal too, unless its ctx is built afresh) (docs/contract.md#verified-readers).
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { describe, expect, it } from 'vitest';
import { oauth2PasswordBearer } from '../src/index.js';
import { scopeToken, scopeTokenVerifier, type TestPrincipal } from './support/scope-tokens.js';

interface Ctx {
  headers?: Record<string, string>;
  gateway?: Record<string, string>;
}
const t = initTRPC.context<Ctx>().create();
/** The tRPC code a call was refused with (`undefined`: it ran). */
const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => (error as TRPCError).code,
  );
const scopes = { me: 'Me', items: 'Items', admin: 'Admin' };

describe("a credential taken away from an optional reader, another verified reader's principal granting the scope", () => {
  const user = oauth2PasswordBearer({ tokenUrl: 'token', scopes, autoError: false, verify: scopeTokenVerifier('u') });
  const gateway = oauth2PasswordBearer({ tokenUrl: 'token', scopes, schemeName: 'Gateway', verify: scopeTokenVerifier('g'), getHeaders: (ctx: Ctx) => ctx.gateway });
  const strip = t.middleware(({ next }) => next({ ctx: { headers: {} } }));
  const router = t.router({
    q: t.procedure
      .use(gateway)
      .use(user)
      .use(strip)
      .use(user.requireScopes('admin'))
      .query(({ ctx }) => ({ principal: ctx.principal as TestPrincipal | null, required: ctx.securityScopes.scopes })),
  });
  const userToken = scopeToken('u', ['me']);
  const gatewayToken = scopeToken('g', ['me', 'admin']);

  it('is refused through createCaller: the principal the user reader verified lacks the scope', async () => {
    const refused = await codeOf(t.createCallerFactory(router)({ headers: { authorization: `Bearer ${userToken}` }, gateway: { authorization: `Bearer ${gatewayToken}` } }).q());
    expect(refused).toBe('FORBIDDEN');
  });

  it("is refused over tRPC's standalone adapter", async () => {
    const server = createHTTPServer({
      router,
      createContext: ({ req }) => ({
        headers: { authorization: String(req.headers.authorization ?? '') },
        gateway: { authorization: String(req.headers['x-gateway-authorization'] ?? '') },
      }),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${port}/q`, { headers: { authorization: `Bearer ${userToken}`, 'x-gateway-authorization': `Bearer ${gatewayToken}` } });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: { data: { code: string } } }).error.data.code).toBe('FORBIDDEN');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('is refused as not authenticated when the user reader had verified a principal granting the scope', async () => {
    const refused = await codeOf(t.createCallerFactory(router)({ headers: { authorization: `Bearer ${scopeToken('u', ['me', 'admin'])}` }, gateway: { authorization: `Bearer ${gatewayToken}` } }).q());
    expect(refused).toBe('UNAUTHORIZED');
  });
});

describe('a nested call with a spread ctx and a credential of its own', () => {
  const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: scopeTokenVerifier('u') });
  const serviceToken = scopeToken('u', ['me', 'admin']);
  const internal = t.router({
    items: t.procedure.use(auth.withScopes('admin')).query(({ ctx }) => ctx.principal.scopes),
    adminOnly: t.procedure.use(auth.requireScopes('admin')).query(({ ctx }) => ({
      principal: (ctx as { principal?: TestPrincipal }).principal,
      token: (ctx as { token?: string }).token,
    })),
  });
  const callInternal = t.createCallerFactory(internal);
  const facade = t.router({
    // Another router's procedure at the same path: the facade's principal is no part of it.
    items: t.procedure.use(auth.withScopes('me')).query(({ ctx }) => callInternal({ ...ctx, headers: { authorization: `Bearer ${serviceToken}` } }).items()),
    admin: t.procedure.use(auth).query(({ ctx }) => callInternal({ ...ctx, headers: { authorization: `Bearer ${serviceToken}` } }).adminOnly()),
  });
  const asUser = () => t.createCallerFactory(facade)({ headers: { authorization: `Bearer ${scopeToken('u', ['me'])}` } });

  // A nested call of a procedure at the same path cannot be told from the same call after a
  // middleware handed on another getRawInput: the outer principal counts there too (the safe
  // side), so the user's token, which lacks `admin`, refuses it.
  it("counts the outer principal in another router's procedure at the same path, with a spread ctx", async () => {
    const refused = await codeOf(asUser().items());
    expect(refused).toBe('FORBIDDEN');
  });

  it("runs another router's procedure at the same path as the inner credential's principal, with a ctx built afresh", async () => {
    const fresh = t.router({
      items: t.procedure.use(auth.withScopes('me')).query(() => callInternal({ headers: { authorization: `Bearer ${serviceToken}` } }).items()),
    });
    expect(await t.createCallerFactory(fresh)({ headers: { authorization: `Bearer ${scopeToken('u', ['me'])}` } }).items()).toEqual(['me', 'admin']);
  });

  it('puts the principal it checked on ctx where the outer one of the same reader was, from a requireScopes step', async () => {
    expect(await asUser().admin()).toEqual({ principal: { subject: 'u', scopes: ['me', 'admin'] }, token: serviceToken });
  });
});
