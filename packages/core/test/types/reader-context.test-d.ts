/**
 * The ctx a reader needs: what its verifier (`VerifyOptions<TCtx>`), `origin` or `getHeaders`
 * declare they read must be on the ctx of every procedure the reader guards, through `.use()` of
 * the reader, `requireScopes`, `withScopes`, `.concat()` of its procedure and `anyOf`
 * (docs/contract.md#verified-readers).
 */
import { initTRPC } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import {
  anyOf,
  oauth2,
  oauth2AuthorizationCodeBearer,
  oauth2Bearer,
  oauth2PasswordBearer,
  type NeededContext,
  type Principal,
  type SecurityReader,
  type TokenVerifier,
  type VerifyOptions,
} from '../../src/index.js';

interface Tenant {
  readonly id: string;
}
const scopes = { me: 'Read me', items: 'Read items' };
const byTenant = async (_token: string, options?: VerifyOptions<{ tenant: Tenant }>): Promise<Principal> => ({ scopes: [options!.ctx.tenant.id] });
const byRegion = async (_token: string, options?: VerifyOptions<{ region: 'eu' | 'us' }>): Promise<Principal> => ({ scopes: [options!.ctx.region] });
declare const anyCtx: TokenVerifier<Principal>;

const bare = initTRPC.context<{ req: Request }>().create();
const tenanted = initTRPC.context<{ req: Request; tenant: Tenant }>().create();
const both = initTRPC.context<{ req: Request; tenant: Tenant; region: 'eu' }>().create();

const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: byTenant });

// What the reader needs is in its type.
expectTypeOf(auth).toEqualTypeOf<SecurityReader<'token', 'me' | 'items', true, Principal, false, { tenant: Tenant }>>();
expectTypeOf<NeededContext<{ tenant: Tenant }>>().toEqualTypeOf<{ tenant: Tenant }>();

// A ctx that carries it: every way of using the reader compiles, and the resolver sees the principal.
tenanted.procedure.use(auth).query(({ ctx }) => expectTypeOf(ctx.principal).toEqualTypeOf<Principal>());
tenanted.procedure.use(auth.withScopes('me')).query(({ ctx }) => expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly 'me'[]>());
tenanted.procedure.use(auth).use(auth.requireScopes('items')).query(({ ctx }) => expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly 'items'[]>());
tenanted.procedure.concat(auth.procedure).query(({ ctx }) => expectTypeOf(ctx.token).toEqualTypeOf<string>());
// A wider ctx, or one a middleware earlier in the chain made, carries it too.
both.procedure.use(auth.withScopes('me', 'items'));
bare.procedure.use(({ next }) => next({ ctx: { tenant: { id: 'acme' } } })).use(auth.withScopes('me'));

// A ctx that lacks it does not compile, whichever way the reader is used.
// @ts-expect-error the verifier reads ctx.tenant, which this procedure's ctx lacks
bare.procedure.use(auth);
// @ts-expect-error withScopes verifies too
bare.procedure.use(auth.withScopes('me'));
// @ts-expect-error and so does requireScopes
bare.procedure.use(auth.requireScopes('me'));
// @ts-expect-error the reader's procedure is concatenated only onto a ctx that carries the tenant
bare.procedure.concat(auth.procedure);
{
  const wrongType = initTRPC.context<{ req: Request; tenant: string }>().create();
  // @ts-expect-error a tenant of another type than the verifier reads
  wrongType.procedure.use(auth);
}

// Every reader factory carries it.
{
  const code = oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes, verify: byTenant });
  const service = oauth2Bearer({ flows: { clientCredentials: { tokenUrl: 't', scopes } }, verify: byTenant });
  const base = oauth2({ flows: { clientCredentials: { tokenUrl: 't', scopes } }, verify: byTenant });
  tenanted.procedure.use(code).use(service).use(base);
  // @ts-expect-error the authorization-code reader's verifier reads the tenant
  bare.procedure.use(code);
  // @ts-expect-error the any-flows reader's too
  bare.procedure.use(service.withScopes('me'));
  // @ts-expect-error and the base reader's
  bare.procedure.use(base.withScopes('items'));
}

// `origin` and `getHeaders` functions of ctx are needs too.
{
  const perServer = oauth2PasswordBearer({ tokenUrl: 't', scopes, verify: anyCtx, origin: (ctx: { publicUrl: string }) => ctx.publicUrl });
  const served = initTRPC.context<{ req: Request; publicUrl: string }>().create();
  served.procedure.use(perServer.withScopes('me'));
  // @ts-expect-error the origin is read from ctx.publicUrl, which this ctx lacks
  bare.procedure.use(perServer);
  const fromMeta = oauth2PasswordBearer({ tokenUrl: 't', getHeaders: (ctx: { meta: { headers: Headers } }) => ctx.meta.headers });
  initTRPC.context<{ meta: { headers: Headers } }>().create().procedure.use(fromMeta);
  // @ts-expect-error the headers are read from ctx.meta, which this ctx lacks
  bare.procedure.use(fromMeta);
}

// Each declares its own ctx, and the reader needs all of them.
{
  const everything = oauth2PasswordBearer({
    tokenUrl: 't',
    scopes,
    verify: byTenant,
    origin: (ctx: { publicUrl: string }) => ctx.publicUrl,
    getHeaders: (ctx: { meta: { headers: Headers } }) => ctx.meta.headers,
  });
  expectTypeOf(everything['~types']).toEqualTypeOf<
    { readonly key: 'token'; readonly scope: 'me' | 'items'; readonly principal: Principal; readonly needs: { tenant: Tenant } & { publicUrl: string } & { meta: { headers: Headers } } } | undefined
  >();
  expectTypeOf<NeededContext<{ tenant: Tenant }, { publicUrl: string }>>().toEqualTypeOf<{ tenant: Tenant } & { publicUrl: string }>();
  expectTypeOf<NeededContext<any, unknown, { tenant?: Tenant }>>().toEqualTypeOf<object>();
  initTRPC.context<{ tenant: Tenant; publicUrl: string; meta: { headers: Headers } }>().create().procedure.use(everything.withScopes('me'));
  // @ts-expect-error this ctx has the tenant and the public URL, but not the headers' meta
  initTRPC.context<{ tenant: Tenant; publicUrl: string }>().create().procedure.use(everything.withScopes('me'));
}

// A reader that reads nothing of ctx needs nothing: a verifier of any ctx (`TokenVerifier<P>`,
// what jwtVerifier is), no verifier, or only members that may be missing.
{
  const plain = oauth2PasswordBearer({ tokenUrl: 't', scopes, verify: anyCtx });
  const unverified = oauth2PasswordBearer({ tokenUrl: 't', scopes });
  const optional = oauth2PasswordBearer({
    tokenUrl: 't',
    scopes,
    verify: async (_token: string, options?: VerifyOptions<{ tenant?: Tenant }>): Promise<Principal> => ({ scopes: options?.ctx.tenant ? ['me'] : [] }),
  });
  expectTypeOf(plain).toEqualTypeOf<SecurityReader<'token', 'me' | 'items', true, Principal, false, object>>();
  expectTypeOf(unverified).toEqualTypeOf<SecurityReader<'token', 'me' | 'items', true, never, false, object>>();
  expectTypeOf(optional).toEqualTypeOf<SecurityReader<'token', 'me' | 'items', true, Principal, false, object>>();
  bare.procedure.use(plain.withScopes('me')).use(unverified).use(optional.withScopes('items'));
  // An inline verifier that declares no ctx reads it as before: any ctx, nothing needed.
  const inline = oauth2PasswordBearer({ tokenUrl: 't', scopes, verify: async (_token, options) => ({ scopes: [String(options?.ctx.anything)] }) });
  bare.procedure.use(inline);
}

// anyOf asks every reader's verifier, so the group needs what each of them needs.
{
  const tenantReader = oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify: byTenant });
  const regionReader = oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes, verify: byRegion });
  const group = anyOf(tenantReader, regionReader);
  expectTypeOf<NonNullable<(typeof group)['~types']>['needs']>().toEqualTypeOf<{ tenant: Tenant } & { region: 'eu' | 'us' }>();
  both.procedure.use(group).use(group.requireScopes('me'));
  // @ts-expect-error the region reader's verifier reads ctx.region, which this ctx lacks
  tenanted.procedure.use(group);
  // @ts-expect-error and its withScopes the same
  tenanted.procedure.use(group.withScopes('me'));
  const plainGroup = anyOf(oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify: anyCtx }), regionReader);
  expectTypeOf<NonNullable<(typeof plainGroup)['~types']>['needs']>().toEqualTypeOf<{ region: 'eu' | 'us' }>();
  initTRPC.context<{ region: 'us' }>().create().procedure.use(plainGroup);
  // @ts-expect-error one reader needing the region is enough for the group to need it
  bare.procedure.use(plainGroup);
}
