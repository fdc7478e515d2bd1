import { initTRPC } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import { oauth2, oauth2AuthorizationCodeBearer, oauth2Bearer, oauth2PasswordBearer, type ImpliedScopes, type Principal, type ScopeImplications } from '../../src/index.js';

const verify = async (): Promise<Principal> => ({ scopes: [] });
const scopes = { admin: 'Admin', 'items:write': 'Write', 'items:read': 'Read', me: 'Me' } as const;

// The hierarchy names declared scopes only, and no scope implies itself.
oauth2PasswordBearer({ tokenUrl: 't', scopes, verify, implies: { admin: ['items:write', 'me'], 'items:write': ['items:read'] } });
// @ts-expect-error an undeclared scope cannot imply anything
oauth2PasswordBearer({ tokenUrl: 't', scopes, verify, implies: { other: ['me'] } });
// @ts-expect-error nor be implied
oauth2PasswordBearer({ tokenUrl: 't', scopes, verify, implies: { admin: ['other'] } });
// @ts-expect-error a scope does not imply itself
oauth2PasswordBearer({ tokenUrl: 't', scopes, verify, implies: { admin: ['admin'] } });
expectTypeOf<ScopeImplications<'a' | 'b'>>().toEqualTypeOf<{ readonly a?: readonly 'b'[]; readonly b?: readonly 'a'[] }>();

// What a grant satisfies, as a literal union: itself and what it implies, transitively; never more.
type Implies = { admin: ['items:write', 'me']; 'items:write': ['items:read'] };
expectTypeOf<ImpliedScopes<Implies, 'admin'>>().toEqualTypeOf<'admin' | 'items:write' | 'me' | 'items:read'>();
expectTypeOf<ImpliedScopes<Implies, 'items:write'>>().toEqualTypeOf<'items:write' | 'items:read'>();
expectTypeOf<ImpliedScopes<Implies, 'items:read'>>().toEqualTypeOf<'items:read'>();
expectTypeOf<ImpliedScopes<Implies, 'me'>>().toEqualTypeOf<'me'>();
// A cycle ends.
expectTypeOf<ImpliedScopes<{ a: ['b']; b: ['a'] }, 'a'>>().toEqualTypeOf<'a' | 'b'>();

// The bearer reader for any flow: the token on ctx.token, the scopes of every flow.
const t = initTRPC.context<{ headers: Record<string, string> }>().create();
const service = oauth2Bearer({
  flows: {
    clientCredentials: { tokenUrl: 't', scopes: { 'jobs:run': 'Run' } },
    authorizationCode: { authorizationUrl: 'a', tokenUrl: 't', scopes: { me: 'Me' } },
  },
  implies: { 'jobs:run': ['me'] },
  verify,
});
t.procedure.use(service.withScopes('jobs:run', 'me')).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string>();
  expectTypeOf(ctx.principal).toEqualTypeOf<Principal>();
});
// @ts-expect-error a scope no flow declares
service.requireScopes('admin');
// @ts-expect-error flows are required
oauth2Bearer({ verify });
// @ts-expect-error the hierarchy of the base reader names its flows' scopes too
oauth2({ flows: { clientCredentials: { tokenUrl: 't', scopes: { a: 'A' } } }, implies: { b: ['a'] }, verify });

// Transitive as far as the type says it goes: eight implications deep.
type Chain = { s0: ['s1']; s1: ['s2']; s2: ['s3']; s3: ['s4']; s4: ['s5']; s5: ['s6']; s6: ['s7']; s7: ['s8'] };
expectTypeOf<ImpliedScopes<Chain, 's0'>>().toEqualTypeOf<'s0' | 's1' | 's2' | 's3' | 's4' | 's5' | 's6' | 's7' | 's8'>();
expectTypeOf<ImpliedScopes<Chain, 's7'>>().toEqualTypeOf<'s7' | 's8'>();
// A union granted: what any of them satisfies.
expectTypeOf<ImpliedScopes<Implies, 'items:write' | 'me'>>().toEqualTypeOf<'items:write' | 'items:read' | 'me'>();

// The authorization code reader's hierarchy names its declared scopes too.
oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes, verify, implies: { 'items:write': ['items:read'] } });
// @ts-expect-error an undeclared scope cannot be implied
oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes, verify, implies: { 'items:write': ['other'] } });
// @ts-expect-error the bearer reader for any flow: only its flows' scopes
oauth2Bearer({ flows: { clientCredentials: { tokenUrl: 't', scopes: { a: 'A' } } }, implies: { a: ['b'] }, verify });
// The readers' required URLs (the OpenAPI flow needs them).
// @ts-expect-error the authorization code flow names its authorization URL
oauth2AuthorizationCodeBearer({ tokenUrl: 't', scopes, verify });
// @ts-expect-error the password flow names its token URL
oauth2PasswordBearer({ scopes, verify });
// @ts-expect-error a flow of the base reader names its token URL
oauth2({ flows: { password: { scopes: { a: 'A' } } } });
// @ts-expect-error OpenAPI's four flows only
oauth2Bearer({ flows: { deviceCode: { tokenUrl: 't', scopes: {} } }, verify });
// The authorization code reader declares its scopes as literals, as the password reader does.
t.procedure.use(oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes, verify }).withScopes('admin', 'me')).query(({ ctx }) => {
  expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly ('admin' | 'me')[]>();
});
