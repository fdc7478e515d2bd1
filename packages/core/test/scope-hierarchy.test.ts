// Scope hierarchies and the bearer reader for any flow, through createCaller and tRPC's real
// adapters: docs/contract.md#scope-hierarchy, docs/contract.md#challenges.
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyOf, getOAuth2Error, oauth2, oauth2Bearer, oauth2PasswordBearer, type Principal, type TokenVerifier } from '../src/index.js';
import { invalidTokenError } from '../src/errors-entry.js';
import { ADAPTERS, serveRouter, type RunningServer } from './support/serve.js';

const SCOPES = ['admin', 'items:write', 'items:read', 'me'] as const;
type Scope = (typeof SCOPES)[number];
const DESCRIBED = Object.fromEntries(SCOPES.map((scope) => [scope, scope])) as Record<Scope, string>;
// Tokens are their space-separated scopes, `+` for a space.
const grants: TokenVerifier<Principal> = async (token) => ({ scopes: token === '' ? [] : token.split('+') });
const METADATA = 'https://api.example/.well-known/oauth-protected-resource';

describe('a reader with a scope hierarchy', () => {
  const auth = oauth2PasswordBearer({
    tokenUrl: '/token',
    scopes: DESCRIBED,
    implies: { admin: ['items:write', 'me'], 'items:write': ['items:read'] },
    verify: grants,
  });
  const t = initTRPC.context<{ headers: Record<string, string> }>().create();
  const router = t.router({
    read: t.procedure.use(auth.withScopes('items:read')).query(() => 'read'),
    readMe: t.procedure.use(auth.withScopes('items:read', 'me')).query(() => 'read me'),
    write: t.procedure.use(auth).use(auth.requireScopes('items:write')).mutation(() => 'written'),
  });
  const caller = (token: string) => router.createCaller({ headers: { authorization: `Bearer ${token}` } });

  it.each([
    ['items:read', 'read', 'read'],
    ['items:write', 'read', 'read'], // implied
    ['admin', 'read', 'read'], // transitively
    ['admin', 'readMe', 'read me'],
    ['items:write', 'write', 'written'],
  ] as const)('%s satisfies %s', async (token, procedure, result) => {
    const call = caller(token);
    expect(await (procedure === 'write' ? call.write() : call[procedure]())).toBe(result);
  });

  it.each([
    ['items:read', 'write', 'items:write'], // the narrower never satisfies the broader
    ['items:write', 'readMe', 'items:read me'], // write implies read, not me
    ['me', 'read', 'items:read'],
  ] as const)('%s does not satisfy %s: 403 naming the declared scopes', async (token, procedure, scope) => {
    const call = caller(token);
    const error = await (procedure === 'write' ? call.write() : call[procedure]()).then(() => undefined, getOAuth2Error);
    expect(error?.headers['WWW-Authenticate']).toBe(`Bearer error="insufficient_scope", scope="${scope}"`);
  });

  // The invariant: a grant satisfies a requirement exactly when every required scope is granted
  // or implied, transitively, by a granted one; never otherwise, whatever the hierarchy.
  it('no implied grant ever satisfies a scope it does not imply (property)', async () => {
    const scope = fc.constantFrom(...SCOPES);
    const hierarchy = fc.dictionary(scope, fc.uniqueArray(scope, { maxLength: 3 }), { maxKeys: 4 }).map((implies) =>
      Object.fromEntries(Object.entries(implies).map(([key, implied]) => [key, implied.filter((narrower) => narrower !== key)])),
    );
    await fc.assert(
      fc.asyncProperty(hierarchy, fc.uniqueArray(scope, { maxLength: 4 }), fc.uniqueArray(scope, { minLength: 1, maxLength: 3 }), async (implies, granted, required) => {
        const reader = oauth2PasswordBearer({ tokenUrl: '/t', scopes: DESCRIBED, implies: implies as never, verify: grants });
        const proc = initTRPC.context<{ headers: Record<string, string> }>().create();
        const one = proc.router({ p: proc.procedure.use(reader.withScopes(...(required as [Scope]))).query(() => true) });
        // The model: the closure of the grant, computed by a plain fixed point.
        const closure = new Set<string>(granted);
        for (let changed = true; changed; ) {
          changed = false;
          for (const held of [...closure]) for (const implied of (implies as Record<string, string[]>)[held] ?? []) if (!closure.has(implied)) closure.add(implied), (changed = true);
        }
        const expected = required.every((needed) => closure.has(needed));
        const outcome = await one
          .createCaller({ headers: { authorization: `Bearer ${granted.join('+')}` } })
          .p()
          .then(() => 'ran', (error: unknown) => getOAuth2Error(error)?.code);
        expect(outcome).toBe(expected ? 'ran' : 'ERR_INSUFFICIENT_SCOPE');
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['a key that is not declared', { other: ['me'] }],
    ['an implied scope that is not declared', { admin: ['other'] }],
    ['an implication that is not an array', { admin: 'me' }],
  ])('refuses, when created, %s', (_name, implies) => {
    expect(() => oauth2PasswordBearer({ tokenUrl: '/t', scopes: DESCRIBED, implies: implies as never, verify: grants })).toThrow(TypeError);
  });
});

describe('anyOf: each principal under the hierarchy of the reader that granted it', () => {
  // Tokens `a:<scopes>` are reader A's, `b:<scopes>` reader B's; each verifier refuses the other's.
  // With `peek`, a member answers its own tokens synchronously too, as a cache does (the group then
  // offers the first member's peek).
  const member = (prefix: string, peek = false): TokenVerifier<Principal> => {
    const grant = (token: string): Principal | undefined => {
      if (!token.startsWith(prefix)) return undefined;
      const scopes = token.slice(prefix.length);
      return { scopes: scopes === '' ? [] : scopes.split('+') };
    };
    const verify = async (token: string) => grant(token) ?? Promise.reject(invalidTokenError('Not this issuer\'s token'));
    return peek ? Object.assign(verify, { peek: grant }) : verify;
  };
  const groupOf = (impliesA: Record<string, string[]> | undefined, impliesB: Record<string, string[]> | undefined, peekA = false, peekB = false) =>
    anyOf(
      oauth2PasswordBearer({ tokenUrl: '/a', scopes: DESCRIBED, schemeName: 'A', ...(impliesA ? { implies: impliesA as never } : {}), verify: member('a:', peekA) }),
      oauth2PasswordBearer({ tokenUrl: '/b', scopes: DESCRIBED, schemeName: 'B', ...(impliesB ? { implies: impliesB as never } : {}), verify: member('b:', peekB) }),
    );

  it("applies A's hierarchy to A's tokens only", async () => {
    const group = groupOf({ 'items:write': ['items:read'] }, undefined);
    const t = initTRPC.context<{ headers: Record<string, string> }>().create();
    const router = t.router({ read: t.procedure.use(group.withScopes('items:read')).query(() => 'read') });
    const call = (token: string) =>
      router
        .createCaller({ headers: { authorization: `Bearer ${token}` } })
        .read()
        .then(() => 'ran', (error: unknown) => getOAuth2Error(error)?.code);
    expect(await call('a:items:write')).toBe('ran');
    expect(await call('b:items:write')).toBe('ERR_INSUFFICIENT_SCOPE');
    expect(await call('b:items:read')).toBe('ran');
  });

  // Verifiers that share one principal object (a cache of users both look up): which reader
  // granted it in a request is not known, so no hierarchy widens it once both have granted it.
  it('never widens a grant through a principal object another reader granted too, in any order of requests (property)', async () => {
    const shared = { scopes: ['admin'] };
    const lookup = (prefix: string): TokenVerifier<Principal> => async (token) => {
      if (!token.startsWith(prefix)) throw invalidTokenError('Not this issuer\'s token');
      return shared;
    };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('own:', 'ext:'), { minLength: 1, maxLength: 8 }), async (calls) => {
        const group = anyOf(
          oauth2PasswordBearer({ tokenUrl: '/ext', scopes: DESCRIBED, schemeName: 'Ext', verify: lookup('ext:') }),
          oauth2PasswordBearer({ tokenUrl: '/own', scopes: DESCRIBED, schemeName: 'Own', implies: { admin: ['items:write'] }, verify: lookup('own:') }),
        );
        const t = initTRPC.context<{ headers: Record<string, string> }>().create();
        const router = t.router({ write: t.procedure.use(group.withScopes('items:write')).query(() => 'ran') });
        let extGranted = false;
        for (const token of calls) {
          const outcome = await router
            .createCaller({ headers: { authorization: `Bearer ${token}carol` } })
            .write()
            .then(() => 'ran', (error: unknown) => getOAuth2Error(error)?.code);
          // The reader without a hierarchy never lets `admin` stand for `items:write`; the one with
          // it does, until the other reader has granted the same object too.
          if (token === 'ext:') extGranted = true;
          expect(outcome).toBe(token === 'own:' && !extGranted ? 'ran' : 'ERR_INSUFFICIENT_SCOPE');
        }
      }),
      { numRuns: 100 },
    );
  });

  // The invariant: through anyOf, a grant satisfies a requirement exactly as it does through the
  // reader whose verifier granted it, whatever the two readers' hierarchies.
  it('never lets one reader\'s hierarchy widen another reader\'s grant, whichever members answer from a peek (property)', async () => {
    const scope = fc.constantFrom(...SCOPES);
    const hierarchy = fc.option(
      fc.dictionary(scope, fc.uniqueArray(scope, { maxLength: 3 }), { maxKeys: 4 }).map((implies) =>
        Object.fromEntries(Object.entries(implies).map(([key, implied]) => [key, implied.filter((narrower) => narrower !== key)])),
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(hierarchy, hierarchy, fc.constantFrom('a:', 'b:'), fc.uniqueArray(scope, { maxLength: 4 }), fc.uniqueArray(scope, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.boolean(), async (impliesA, impliesB, issuer, granted, required, peekA, peekB) => {
        const group = groupOf(impliesA, impliesB, peekA, peekB);
        const t = initTRPC.context<{ headers: Record<string, string> }>().create();
        const router = t.router({ p: t.procedure.use(group).use(group.requireScopes(...(required as [Scope]))).query(() => true) });
        const implies = (issuer === 'a:' ? impliesA : impliesB) ?? {};
        const closure = new Set<string>(granted);
        for (let changed = true; changed; ) {
          changed = false;
          for (const held of [...closure]) for (const implied of implies[held] ?? []) if (!closure.has(implied)) closure.add(implied), (changed = true);
        }
        const outcome = await router
          .createCaller({ headers: { authorization: `Bearer ${issuer}${granted.join('+')}` } })
          .p()
          .then(() => 'ran', (error: unknown) => getOAuth2Error(error)?.code);
        expect(outcome).toBe(required.every((needed) => closure.has(needed)) ? 'ran' : 'ERR_INSUFFICIENT_SCOPE');
      }),
      { numRuns: 200 },
    );
  });
});

describe('the bearer reader for any flow', () => {
  const flows = { clientCredentials: { tokenUrl: 'https://issuer.example/token', scopes: { 'jobs:run': 'Run jobs' } } } as const;
  const t = initTRPC.context<{ headers: Record<string, string> }>().create();

  it('gives the verifier the bearer token of a client-credentials client, where the base reader gives it the whole header', async () => {
    const seen: string[] = [];
    const verify: TokenVerifier<Principal> = async (token) => (seen.push(token), { scopes: ['jobs:run'] });
    const bearer = oauth2Bearer({ flows, verify });
    const base = oauth2({ flows, verify });
    const router = t.router({
      bearer: t.procedure.use(bearer.withScopes('jobs:run')).query(({ ctx }) => ctx.token),
      base: t.procedure.use(base.withScopes('jobs:run')).query(({ ctx }) => ctx.authorization),
    });
    const caller = router.createCaller({ headers: { authorization: 'Bearer abc.def' } });
    expect(await caller.bearer()).toBe('abc.def');
    expect(await caller.base()).toBe('Bearer abc.def');
    expect(seen).toEqual(['abc.def', 'Bearer abc.def']);
  });

  it('declares its flows and their scopes, under its own scheme name', () => {
    const bearer = oauth2Bearer({
      flows: { ...flows, authorizationCode: { authorizationUrl: '/auth', tokenUrl: '/token', scopes: { me: 'Me', 'jobs:run': 'Run' } } },
      verify: grants,
    });
    expect(bearer.schemeName).toBe('OAuth2Bearer');
    expect(bearer.securityScheme.flows.clientCredentials?.tokenUrl).toBe('https://issuer.example/token');
    expect(() => bearer.requireScopes('me', 'jobs:run')).not.toThrow();
    expect(() => bearer.requireScopes('other' as never)).toThrow();
  });

  it('refuses a token of another scheme, and no token, 401 with a bearer challenge', async () => {
    const bearer = oauth2Bearer({ flows, verify: grants });
    const router = t.router({ p: t.procedure.use(bearer).query(() => 1) });
    for (const headers of [{}, { authorization: 'Basic YTpi' }] as Record<string, string>[]) {
      const error = await router.createCaller({ headers }).p().catch(getOAuth2Error);
      expect(error).toMatchObject({ status: 401, headers: { 'WWW-Authenticate': 'Bearer' } });
    }
  });
});

// Every challenge a reader answers with carries resource_metadata when the reader is told where
// the metadata is: through tRPC's real adapters.
describe.each(ADAPTERS)('resource_metadata in every challenge, through the %s adapter', (adapter) => {
  const auth = oauth2Bearer({
    flows: { clientCredentials: { tokenUrl: '/token', scopes: DESCRIBED } },
    implies: { 'items:write': ['items:read'] },
    resourceMetadata: METADATA,
    verify: async (token) => {
      if (token === 'expired') throw (await import('../src/errors-entry.js')).invalidTokenError('The access token expired');
      return grants(token);
    },
  });
  const t = initTRPC.create();
  const router = t.router({ items: t.procedure.use(auth.withScopes('items:read', 'me')).query(() => 'ok') });
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());

  it.each([
    [undefined, 401, `Bearer resource_metadata="${METADATA}"`],
    ['expired', 401, `Bearer error="invalid_token", error_description="The access token expired", resource_metadata="${METADATA}"`],
    ['me', 403, `Bearer error="insufficient_scope", scope="items:read me", resource_metadata="${METADATA}"`],
    ['items:write+me', 200, null],
  ] as const)('token %s → %i %s', async (token, status, challenge) => {
    const response = await fetch(`${server.url}/items`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
    expect({ status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({ status, challenge });
  });

  it('refuses, when the reader is created, a metadata URL no challenge can carry', () => {
    expect(() => oauth2Bearer({ flows: {}, resourceMetadata: 'https://api.example/"x', verify: grants })).toThrow(TypeError);
  });
});
