import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { OAuth2Error, oauth2, oauth2PasswordBearer } from '../src/index.js';
import { isScopeToken, parseScope } from '../src/protocol.js';
import { scopeToken, scopeTokenVerifier } from './support/scope-tokens.js';

const t = initTRPC.context<{ headers: Record<string, string> }>().create();
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me', items: 'Items', admin: 'Admin' }, verify: scopeTokenVerifier('u') });
const everything = scopeToken('u', ['me', 'items', 'admin']);
const headers = { authorization: `Bearer ${everything}` };

const authed = t.procedure.use(auth);
const me = authed.use(auth.requireScopes('me'));
const router = t.router({
  none: authed.query(({ ctx }) => (ctx as { securityScopes?: unknown }).securityScopes),
  me: me.query(({ ctx }) => ctx.securityScopes),
  meItems: me.use(auth.requireScopes('items')).query(({ ctx }) => ctx.securityScopes),
  meAdmin: me.use(auth.requireScopes('admin')).query(({ ctx }) => ctx.securityScopes),
  repeated: me.use(auth.requireScopes('items', 'me')).use(auth.requireScopes('me')).query(({ ctx }) => ctx.securityScopes),
  oneStep: t.procedure.use(auth.withScopes('me', 'items')).query(({ ctx }) => ctx.securityScopes),
  oneStepThenMore: t.procedure.use(auth.withScopes('items')).use(auth.requireScopes('me', 'items')).query(({ ctx }) => ctx.securityScopes),
  oneStepToken: t.procedure.use(auth.withScopes('me')).query(({ ctx }) => ctx.token),
  beforeReader: t.procedure.use(auth.requireScopes('items')).use(auth).use(auth.requireScopes('me')).query(({ ctx }) => ctx.securityScopes),
});
const caller = t.createCallerFactory(router)({ headers });

describe('SecurityScopes', () => {
  it.each([
    { path: 'none', scopes: [], scopeStr: '' },
    { path: 'me', scopes: ['me'], scopeStr: 'me' },
    { path: 'meItems', scopes: ['me', 'items'], scopeStr: 'me items' },
    { path: 'meAdmin', scopes: ['me', 'admin'], scopeStr: 'me admin' },
    { path: 'repeated', scopes: ['me', 'items'], scopeStr: 'me items' },
    { path: 'beforeReader', scopes: ['items', 'me'], scopeStr: 'items me' },
    { path: 'oneStep', scopes: ['me', 'items'], scopeStr: 'me items' },
    { path: 'oneStepThenMore', scopes: ['items', 'me'], scopeStr: 'items me' },
  ] as const)('$path accumulates $scopes in declaration order, without duplicates', async ({ path, scopes, scopeStr }) => {
    const result = await caller[path]();
    expect(result).toEqual({ scopes, scopeStr });
  });

  it('keeps sibling procedures built from one base apart, on every call', async () => {
    for (let round = 0; round < 3; round++) {
      expect((await caller.meItems()).scopes).toEqual(['me', 'items']);
      expect((await caller.meAdmin()).scopes).toEqual(['me', 'admin']);
      expect((await caller.me()).scopes).toEqual(['me']);
    }
  });

  it.each(['a b', '', 'quote"d', 'back\\slash', 'tab\t', 'é'])('refuses the scope name %j when the procedure is defined', (name) => {
    const loose = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { ok: 'fine' }, manualScopeCheck: true });
    expect(() => (loose.requireScopes as (...s: string[]) => unknown)(name)).toThrow(TypeError);
    expect(() => oauth2PasswordBearer({ tokenUrl: 'token', scopes: { [name]: 'bad' } })).toThrow(/Invalid scope name/);
  });

  it('refuses a scope its reader does not declare, and an empty list', () => {
    expect(() => (auth.requireScopes as (...s: string[]) => unknown)('write')).toThrow(/not declared/);
    expect(() => (auth.requireScopes as (...s: string[]) => unknown)()).toThrow(/requireScopes needs at least one scope/);
    expect(() => (auth.withScopes as (...s: string[]) => unknown)('write')).toThrow(/not declared/);
    expect(() => (auth.withScopes as (...s: string[]) => unknown)()).toThrow(/withScopes needs at least one scope/);
  });

  it('withScopes reads the token as the reader does, refusing a request without one', async () => {
    await expect(caller.oneStepToken()).resolves.toBe(everything);
    const error = await t.createCallerFactory(router)({ headers: {} }).oneStepToken().catch((e: unknown) => e);
    expect((error as TRPCError).code).toBe('UNAUTHORIZED');
    expect(((error as TRPCError).cause as OAuth2Error).headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
  });

  it('accepts every character of the scope-token grammar', () => {
    const all = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i))
      .filter((c) => c !== '"' && c !== '\\')
      .join('');
    const reader = oauth2({ flows: { clientCredentials: { tokenUrl: 't', scopes: { [all]: 'every char' } } }, manualScopeCheck: true });
    expect(() => (reader.requireScopes as (...s: string[]) => unknown)(all)).not.toThrow();
  });
});

describe('granted scopes', () => {
  const granted = (scopes: Iterable<string>) => t.createCallerFactory(router)({ headers: { authorization: `Bearer ${scopeToken('u', [...scopes])}` } });

  it.each([
    { granted: ['me', 'items'], path: 'meItems' },
    { granted: new Set(['me', 'items', 'admin']), path: 'meAdmin' },
  ] as const)('lets $path through when $granted are granted', async ({ granted: scopes, path }) => {
    await expect(granted(scopes)[path]()).resolves.toMatchObject({ scopes: expect.any(Array) });
  });

  it.each([
    { granted: [], path: 'me', challenge: 'Bearer error="insufficient_scope", scope="me"' },
    { granted: ['me'], path: 'meItems', challenge: 'Bearer error="insufficient_scope", scope="me items"' },
    { granted: new Set(['items']), path: 'meItems', challenge: 'Bearer error="insufficient_scope", scope="me"' },
    { granted: ['me'], path: 'oneStep', challenge: 'Bearer error="insufficient_scope", scope="me items"' },
  ] as const)('refuses $path with 403 insufficient_scope when $granted are granted', async ({ granted: scopes, path, challenge }) => {
    const error = await granted(scopes)[path]().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('FORBIDDEN');
    const cause = (error as TRPCError).cause as OAuth2Error;
    expect(cause).toBeInstanceOf(OAuth2Error);
    expect(cause.code).toBe('ERR_INSUFFICIENT_SCOPE');
    expect(cause.status).toBe(403);
    expect(cause.headers).toEqual({ 'WWW-Authenticate': challenge });
  });
});

describe('the RFC 6749 §3.3 scope grammar other packages check scopes with', () => {
  it('isScopeToken takes printable ASCII but space, " and \\, at least one character', () => {
    for (const token of ['me', 'items:read', '!', '~', 'a#b[c]']) expect(isScopeToken(token)).toBe(true);
    for (const token of ['', 'two words', 'a"b', 'a\\b', 'é', 'tab\t', 1, null]) expect(isScopeToken(token)).toBe(false);
  });

  it('parseScope splits on exactly one space and refuses anything else', () => {
    expect(parseScope('')).toEqual([]);
    expect(parseScope('me items')).toEqual(['me', 'items']);
    for (const scope of ['me  items', ' me', 'me ', 'me\titems', 'a"b']) expect(parseScope(scope)).toBeUndefined();
  });
});
