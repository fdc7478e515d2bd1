import { initTRPC } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import {
  oauth2,
  oauth2Bearer,
  oauth2AuthorizationCodeBearer,
  oauth2PasswordBearer,
  type Principal,
  type SecurityScopes,
  type TokenVerifier,
  type VerifyOptions,
  type VerifyRequest,
} from '../../src/index.js';
import { dpopProofVerifier, memoryReplayStore } from '../../src/dpop/index.js';

// The principal a verifier returns goes on ctx.principal, typed through to the resolver
// (docs/contract.md#verified-readers).
interface User extends Principal {
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly expiresAt: number;
}
declare const verifyUser: TokenVerifier<User>;
const t = initTRPC.context<{ req: Request }>().create();
const scopes = { me: 'Read me', items: 'Read items' };

const password = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: verifyUser });
const passwordOptional = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: verifyUser, autoError: false });
const code = oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes, verify: verifyUser });
const codeOptional = oauth2AuthorizationCodeBearer({ authorizationUrl: 'a', tokenUrl: 't', scopes, verify: verifyUser, autoError: false });
const base = oauth2({ flows: { clientCredentials: { tokenUrl: 'cc', scopes: { svc: '' } } }, verify: verifyUser });
const baseOptional = oauth2({ flows: { clientCredentials: { tokenUrl: 'cc', scopes: { svc: '' } } }, verify: verifyUser, autoError: false });

// Each reader with autoError true: the principal; with autoError false: the principal or null.
t.procedure.use(password).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string>();
  expectTypeOf(ctx.principal).toEqualTypeOf<User>();
});
t.procedure.use(passwordOptional).query(({ ctx }) => {
  expectTypeOf(ctx.token).toEqualTypeOf<string | null>();
  expectTypeOf(ctx.principal).toEqualTypeOf<User | null>();
});
t.procedure.use(code).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<User>();
});
t.procedure.use(codeOptional).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<User | null>();
});
t.procedure.use(base).query(({ ctx }) => {
  expectTypeOf(ctx.authorization).toEqualTypeOf<string>();
  expectTypeOf(ctx.principal).toEqualTypeOf<User>();
});
t.procedure.use(baseOptional).query(({ ctx }) => {
  expectTypeOf(ctx.authorization).toEqualTypeOf<string | null>();
  expectTypeOf(ctx.principal).toEqualTypeOf<User | null>();
});

// withScopes, requireScopes before and after, and concat carry it too.
t.procedure.use(password.withScopes('me')).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<User>();
  expectTypeOf(ctx.securityScopes).toEqualTypeOf<SecurityScopes<'me'>>();
});
t.procedure.use(passwordOptional.withScopes('me')).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<User | null>();
});
t.procedure.use(password.requireScopes('items')).use(password).use(password.requireScopes('me')).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<User>();
  expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly ('items' | 'me')[]>();
});
t.procedure.concat(password.procedure).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<User>();
});
t.procedure.concat(baseOptional.procedure).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<User | null>();
});

// autoError as a plain boolean: may be null.
declare const flag: boolean;
t.procedure.use(oauth2PasswordBearer({ tokenUrl: 't', verify: verifyUser, autoError: flag })).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<User | null>();
});

// The principal is inferred from an inline verifier.
t.procedure.use(oauth2PasswordBearer({ tokenUrl: 't', verify: async () => ({ scopes: new Set(['a']), tenant: 7 }) })).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<{ scopes: Set<string>; tenant: number }>();
});

// A reader without verify puts no principal on ctx.
t.procedure.use(oauth2PasswordBearer({ tokenUrl: 't' })).query(({ ctx }) => {
  expectTypeOf(ctx).not.toHaveProperty('principal');
});

// A verifier must return a principal: scopes are required.
// @ts-expect-error no scopes in what verify returns
oauth2PasswordBearer({ tokenUrl: 't', verify: async () => ({ subject: 'x' }) });

// Scopes of a reader that does not verify: refused unless manualScopeCheck: true, with a message.
const unverified = oauth2PasswordBearer({ tokenUrl: 't', scopes });
// @ts-expect-error no verify and no manualScopeCheck
unverified.requireScopes('me');
// @ts-expect-error no verify and no manualScopeCheck
unverified.withScopes('me');
expectTypeOf<Parameters<typeof unverified.requireScopes>[0]>().toExtend<
  'This reader has no `verify`, so nothing would check these scopes: give it `verify`, or create it with `manualScopeCheck: true` and check the grant yourself'
>();
declare const maybeManual: boolean;
// @ts-expect-error manualScopeCheck must be literally true
oauth2PasswordBearer({ tokenUrl: 't', scopes, manualScopeCheck: maybeManual }).requireScopes('me');
const manual = oauth2PasswordBearer({ tokenUrl: 't', scopes, manualScopeCheck: true });
t.procedure.use(manual).use(manual.requireScopes('me')).query(({ ctx }) => {
  expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly 'me'[]>();
  expectTypeOf(ctx).not.toHaveProperty('principal');
});
oauth2({ flows: { clientCredentials: { tokenUrl: 'cc', scopes: { svc: '' } } }, manualScopeCheck: true }).withScopes('svc');
// @ts-expect-error the base reader too
oauth2({ flows: { clientCredentials: { tokenUrl: 'cc', scopes: { svc: '' } } } }).withScopes('svc');

// A verifier may offer a synchronous `peek` (a cache does); a plain async function is a verifier too.
expectTypeOf<TokenVerifier<User>['peek']>().toEqualTypeOf<((token: string) => User | undefined) | undefined>();
const plain: TokenVerifier<Principal> = async () => ({ scopes: [] });
const peeking: TokenVerifier<Principal> = Object.assign(async () => ({ scopes: [] }), { peek: (): Principal | undefined => undefined });
// @ts-expect-error peek answers the principal type of the verifier, or undefined
const wrongPeek: TokenVerifier<User> = Object.assign(async () => ({ subject: 's', scopes: [], expiresAt: 0 }), { peek: () => 'user' });
void [plain, peeking, wrongPeek];

// A verifier may declare the ctx it reads and look at the request (docs/contract.md#verified-readers).
{
  const byTenant = async (_token: string, options?: VerifyOptions<{ tenant: string }>) => {
    expectTypeOf(options!.ctx.tenant).toEqualTypeOf<string>();
    expectTypeOf(options!.request.method).toEqualTypeOf<string>();
    expectTypeOf(options!.request.url).toEqualTypeOf<string>();
    expectTypeOf(options!.request.header).toEqualTypeOf<(name: string) => string | undefined>();
    return { subject: 'u', scopes: ['me'], expiresAt: 0 } satisfies User;
  };
  const tenantAuth = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: byTenant, origin: 'https://api.example' });
  const withTenant = initTRPC.context<{ req: Request; tenant: string }>().create();
  expectTypeOf(withTenant.procedure.use(tenantAuth).query(({ ctx }) => ctx.principal)).toBeObject();
  // The procedure's ctx must carry what the verifier reads (reader-context.test-d.ts has the rest).
  // @ts-expect-error this procedure's ctx has no tenant for the verifier to read
  t.procedure.use(tenantAuth);
  // @ts-expect-error a verifier's ctx is only what the options give it: the request is read-only
  (null as unknown as VerifyRequest).url = 'x';
}

// The path a proxy strips is a string, fixed where the reader is made (docs/contract.md#dpop).
oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: verifyUser, origin: 'https://api.example', pathPrefix: '/svc' });
// @ts-expect-error pathPrefix is a path, not a function of ctx
oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: verifyUser, origin: 'https://api.example', pathPrefix: (ctx: { prefix: string }) => ctx.prefix });

// `origin` is a string, or a function of ctx giving one per request (docs/contract.md#dpop).
{
  const perServer = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: verifyUser, origin: (ctx: { publicUrl: string }) => ctx.publicUrl });
  expectTypeOf(perServer).toBeFunction();
  // @ts-expect-error an origin is text, not a number
  oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: verifyUser, origin: 443 });
  // @ts-expect-error a function of ctx answers the origin's text
  oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: verifyUser, origin: () => new URL('https://api.example') });
}

// A proof checker is handed the procedure's ctx, unknown to it (docs/contract.md#dpop).
{
  expectTypeOf<import('../../src/dpop/index.js').DPoPRequest['ctx']>().toEqualTypeOf<unknown>();
}

// A replay store is told the proof key's thumbprint as a third argument; a store that takes only
// the first two is one still (docs/contract.md#dpop).
{
  type Use = import('../../src/dpop/index.js').DPoPReplayStore['use'];
  expectTypeOf<Parameters<Use>>().toEqualTypeOf<[key: string, expiresAt: number, holder?: string]>();
  // A look that records nothing, which a store may leave out.
  expectTypeOf<import('../../src/dpop/index.js').DPoPReplayStore['wouldRefuse']>().toEqualTypeOf<
    ((key: string, holder?: string) => boolean | Promise<boolean>) | undefined
  >();
  // Forgetting what `use` recorded, which a store may leave out too.
  expectTypeOf<import('../../src/dpop/index.js').DPoPReplayStore['release']>().toEqualTypeOf<
    ((key: string, expiresAt: number, holder?: string) => void | Promise<void>) | undefined
  >();
  // @ts-expect-error forgetting names the deadline the key was recorded with
  const noDeadline: import('../../src/dpop/index.js').DPoPReplayStore = { use: () => true, release: (key: string, holder: string) => void [key, holder] };
  void noDeadline;
  const twoArguments = { use: async (key: string, expiresAt: number) => key.length < expiresAt };
  dpopProofVerifier({ replay: twoArguments });
  memoryReplayStore({ maxEntries: 10_000, maxEntriesPerKey: 100 });
  // @ts-expect-error a key's share is a number of entries
  memoryReplayStore({ maxEntriesPerKey: '10%' });
}

// The bearer reader for any flow takes DPoP as the password and code readers do; the base reader,
// which puts the whole Authorization value on ctx, does not (docs/contract.md#dpop).
{
  const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
  const flows = { clientCredentials: { tokenUrl: 'cc', scopes: { svc: 'Service' } } };
  const service = oauth2Bearer({ flows, verify: verifyUser, origin: 'https://api.example', dpop: { mode: 'required', proofs } });
  t.procedure.use(service.withScopes('svc')).query(({ ctx }) => {
    expectTypeOf(ctx.token).toEqualTypeOf<string>();
    expectTypeOf(ctx.principal).toEqualTypeOf<User>();
  });
  // @ts-expect-error DPoP's modes are 'allowed' and 'required'
  oauth2Bearer({ flows, verify: verifyUser, dpop: { mode: 'sometimes', proofs } });
  // @ts-expect-error the base reader reads no DPoP credential
  oauth2({ flows, verify: verifyUser, dpop: { mode: 'required', proofs } });
}

// A verifier annotated without a type argument returns a plain Principal, and its reader puts one on ctx.
const anyPrincipal: TokenVerifier = async () => ({ scopes: ['me'] });
expectTypeOf<TokenVerifier>().toEqualTypeOf<TokenVerifier<Principal>>();
expectTypeOf(anyPrincipal).returns.resolves.toEqualTypeOf<Principal>();
t.procedure.use(oauth2PasswordBearer({ tokenUrl: 'token', verify: anyPrincipal })).query(({ ctx }) => {
  expectTypeOf(ctx.principal).toEqualTypeOf<Principal>();
});
// @ts-expect-error a verifier's principal is a Principal: one without scopes is not
const noScopes: TokenVerifier = async () => ({ expiresAt: 1 });
void noScopes;
