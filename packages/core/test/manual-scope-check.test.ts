// A manualScopeCheck reader's scopes, checked by the resolver with assertGrantedScopes given the
// reader: its scope hierarchy and its refusal (resource_metadata included) apply, as they do to a
// verified reader's (docs/contract.md#securityscopes, docs/contract.md#scope-hierarchy).
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertGrantedScopes, oauth2PasswordBearer } from '../src/index.js';
import { ADAPTERS, query, serveRouter, type RunningServer } from './support/serve.js';

const METADATA = 'https://api.example/.well-known/oauth-protected-resource';
const manual = oauth2PasswordBearer({
  tokenUrl: 'token',
  scopes: { 'items:read': 'Read items', 'items:write': 'Write items', me: 'Me' },
  implies: { 'items:write': ['items:read'] },
  resourceMetadata: METADATA,
  manualScopeCheck: true,
});
const t = initTRPC.context<{ req: unknown }>().create();
// The token is the space-separated list of the scopes it grants.
const router = t.router({
  read: t.procedure.use(manual.withScopes('items:read')).query(({ ctx }) => {
    assertGrantedScopes(ctx.securityScopes, ctx.token.split(' '), manual);
    return 'ran';
  }),
  readMe: t.procedure.use(manual.withScopes('items:read', 'me')).query(({ ctx }) => {
    assertGrantedScopes(ctx.securityScopes, new Set(ctx.token.split(' ')), manual);
    return 'ran';
  }),
});

describe.each(ADAPTERS)('assertGrantedScopes given the reader, through the %s adapter', (adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());

  it.each([
    ['read', 'items:read', 200, null],
    ['read', 'items:write', 200, null],
    ['read', 'me', 403, `Bearer error="insufficient_scope", scope="items:read", resource_metadata="${METADATA}"`],
    ['readMe', 'items:write me', 200, null],
    ['readMe', 'items:write', 403, `Bearer error="insufficient_scope", scope="items:read me", resource_metadata="${METADATA}"`],
  ] as const)('%s granted %s → %i', async (path, granted, status, challenge) => {
    const result = await query(server, path, `Bearer ${granted}`);
    expect({ status: result.status, challenge: result.challenge }).toEqual({ status, challenge });
  });
});

describe('assertGrantedScopes without a reader', () => {
  it('reads no hierarchy and names no metadata', () => {
    const required = { scopes: ['items:read'], scopeStr: 'items:read' };
    expect(() => assertGrantedScopes(required, ['items:read'])).not.toThrow();
    expect(() => assertGrantedScopes(required, ['items:write'])).toThrow('Not enough permissions');
  });
});
