/**
 * The invariant of docs/contract.md#verified-readers, over generated chains: when a chain requires
 * scopes and has a verified reader, its resolver never runs unless the verified principal grants
 * every scope the chain accumulated — whatever the order of the readers, `requireScopes`,
 * `withScopes` and the application's own middlewares (one of which hands the next steps another
 * `getRawInput`, another of which changes the credential between two steps), built with `.use()`
 * or `.concat()`; with `anyOf` of the two readers as a third verified reader, and a
 * `manualScopeCheck` reader (no verifier) whose steps add scopes too. A token may be accepted by
 * both verifiers, each granting its own scopes: every principal counts, those a reader verified
 * before the credential changed included, whether or not another `getRawInput` was handed on
 * before or after the change. Every chain is called through `createCaller` and
 * through tRPC's standalone adapter on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initTRPC, TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyOf, getOAuth2Error, oauth2AuthorizationCodeBearer, oauth2PasswordBearer, oauth2ResponseMeta, type TokenVerifier } from '../../src/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';
import { scopeToken, type TestPrincipal } from '../support/scope-tokens.js';

const SCOPES = ['me', 'items', 'admin'] as const;
type Scope = (typeof SCOPES)[number];
/** The two verified schemes: each reader has its own verifier, and its own grant in a token. */
type Which = 0 | 1;
/**
 * A reader of a chain: one of the two verified ones, (2) `anyOf` of both, which takes the first
 * one's grant when it has one, else the second's, or (3) a `manualScopeCheck` reader, which reads
 * the token without verifying it.
 */
type ReaderIndex = Which | 2 | 3;
const MANUAL = 3;

type Overwrite = 'securityScopes' | 'principal' | 'token' | 'grantedScopes' | 'rawInput' | 'credential' | 'nothing';
type Step =
  | { kind: 'reader'; reader: ReaderIndex; via: 'use' | 'concat' }
  | { kind: 'requireScopes' | 'withScopes'; reader: ReaderIndex; scopes: Scope[]; via: 'use' | 'concat' }
  | { kind: 'user'; overwrite: Overwrite; via: 'use' | 'concat' };
type Credential =
  | { kind: 'none' }
  | { kind: 'basic' }
  | { kind: 'refused' }
  /** What each verified reader's verifier grants for the token (`null`: it refuses it). */
  | { kind: 'valid'; grants: readonly [Scope[] | null, Scope[] | null] };

const scopeList = fc.subarray([...SCOPES], { minLength: 1 });
const via = fc.constantFrom<'use' | 'concat'>('use', 'concat');
const which = fc.constantFrom<Which>(0, 1);
const readerIndex = fc.constantFrom<ReaderIndex>(0, 1, 2, MANUAL);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('reader' as const), reader: readerIndex, via }),
  fc.record({ kind: fc.constantFrom('requireScopes' as const, 'withScopes' as const), reader: readerIndex, scopes: scopeList, via }),
  fc.record({
    kind: fc.constant('user' as const),
    overwrite: fc.constantFrom<Overwrite>('securityScopes', 'principal', 'token', 'grantedScopes', 'rawInput', 'credential', 'nothing'),
    via,
  }),
);
const credential: fc.Arbitrary<Credential> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.constant({ kind: 'basic' as const }),
  fc.constant({ kind: 'refused' as const }),
  fc.tuple(which, fc.subarray([...SCOPES])).map(([only, scopes]): Credential => ({ kind: 'valid', grants: only === 0 ? [scopes, null] : [null, scopes] })),
  fc.tuple(fc.subarray([...SCOPES]), fc.subarray([...SCOPES])).map(([first, second]): Credential => ({ kind: 'valid', grants: [first, second] })),
);

/** A token both verifiers read: `g.<base64url of the JSON pair of grants>`, each `null` or a list of scopes. */
const grantToken = (grants: readonly [Scope[] | null, Scope[] | null]): string => `g.${Buffer.from(JSON.stringify(grants)).toString('base64url')}`;

/** What the verifier of reader `which` grants for `token`, or `undefined` when it refuses it. */
function grantIn(token: string, which: Which): string[] | undefined {
  if (!token.startsWith('g.')) return undefined;
  try {
    const grants = JSON.parse(Buffer.from(token.slice(2), 'base64url').toString()) as unknown;
    const grant = Array.isArray(grants) ? (grants[which] as unknown) : undefined;
    return Array.isArray(grant) && grant.every((scope) => typeof scope === 'string') ? grant : undefined;
  } catch {
    return undefined;
  }
}

/** The verifier of reader `which`; with `peek`, it also answers synchronously, as a cache does. */
function grantVerifier(which: Which, { peek = false } = {}): TokenVerifier<TestPrincipal> {
  const subject = `reader-${which}`;
  const verify = async (token: string): Promise<TestPrincipal> => {
    const scopes = grantIn(token, which);
    if (scopes === undefined) throw invalidTokenError('The access token is invalid');
    return { subject, scopes };
  };
  if (!peek) return verify;
  return Object.assign(verify, {
    peek: (token: string): TestPrincipal | undefined => {
      const scopes = grantIn(token, which);
      return scopes === undefined ? undefined : { subject, scopes };
    },
  });
}

/**
 * The credential a middleware of the application puts on ctx in place of the request's (a token
 * exchanged for another, say): both verifiers accept it, granting every scope.
 */
const SWAPPED: Credential = { kind: 'valid', grants: [[...SCOPES], [...SCOPES]] };

/** What a verified reader's principal grants for a valid credential (`null`: the reader refuses the token). */
const grantOf = (c: Extract<Credential, { kind: 'valid' }>, reader: Exclude<ReaderIndex, typeof MANUAL>): readonly Scope[] | null =>
  reader === 2 ? (c.grants[0] ?? c.grants[1]) : c.grants[reader];

const authorizationOf = (c: Credential): string | undefined => {
  switch (c.kind) {
    case 'none':
      return undefined;
    case 'basic':
      return 'Basic YWxpY2U6c2VjcmV0';
    case 'refused':
      return 'Bearer forged.token';
    case 'valid':
      return `Bearer ${grantToken(c.grants)}`;
  }
};

/** What a call answered: the status, the challenge, and whether the resolver ran. */
interface Outcome {
  status: number;
  challenge: string | null;
}

/**
 * The model of one call, step by step as docs/contract.md#verified-readers describes: each verified
 * reader is consulted once per credential (no credential: refuse, or null when optional; a token
 * its verifier refuses: invalid_token; `anyOf` accepts a token either verifier accepts, and is
 * optional only when both readers are), and again when a middleware changed the credential since
 * its last consultation, its earlier principal still counting; the `manualScopeCheck` reader's own
 * step and its `withScopes` read a bearer token (none: refuse) and verify nothing; and after every
 * security step each principal known must grant every scope accumulated so far, and scopes with
 * no principal known refuse as not authenticated. The application's other middlewares change
 * nothing of it.
 */
function model(steps: readonly Step[], autoError: readonly [boolean, boolean], original: Credential): Outcome {
  const scopes: Scope[] = [];
  let c = original;
  /** Each verified reader's consultations: the `Authorization` value, and what its principal grants (`null`: none). */
  const consulted = new Map<ReaderIndex, { authorization: string | undefined; granted: readonly Scope[] | null }[]>();
  const consult = (reader: ReaderIndex, kind: Step['kind']): Outcome | undefined => {
    if (reader === MANUAL) {
      const reads = kind === 'reader' || kind === 'withScopes';
      return reads && (c.kind === 'none' || c.kind === 'basic') ? { status: 401, challenge: 'Bearer' } : undefined;
    }
    const authorization = authorizationOf(c);
    const consultations = consulted.get(reader) ?? [];
    if (consultations.length > 0 && consultations.at(-1)!.authorization === authorization) return undefined;
    if (c.kind === 'none' || c.kind === 'basic') {
      if (reader === 2 ? autoError[0] || autoError[1] : autoError[reader]) return { status: 401, challenge: 'Bearer' };
      consulted.set(reader, [...consultations, { authorization, granted: null }]);
      return undefined;
    }
    const granted = c.kind === 'refused' ? null : grantOf(c, reader);
    if (granted === null) return { status: 401, challenge: 'Bearer error="invalid_token", error_description="The access token is invalid"' };
    consulted.set(reader, [...consultations, { authorization, granted }]);
    return undefined;
  };
  const check = (): Outcome | undefined => {
    if (scopes.length === 0 || consulted.size === 0) return undefined;
    const principals = [...consulted.values()].flat().flatMap(({ granted }) => (granted === null ? [] : [granted]));
    if (principals.length === 0) return { status: 401, challenge: 'Bearer' };
    if (principals.some((granted) => scopes.some((s) => !granted.includes(s)))) {
      return { status: 403, challenge: `Bearer error="insufficient_scope", scope="${scopes.join(' ')}"` };
    }
    return undefined;
  };
  for (const s of steps) {
    if (s.kind === 'user') {
      if (s.overwrite === 'credential') c = SWAPPED;
      continue;
    }
    const refused = consult(s.reader, s.kind);
    if (refused) return refused;
    if (s.kind !== 'reader') for (const scope of s.scopes) if (!scopes.includes(scope)) scopes.push(scope);
    const failed = check();
    if (failed) return failed;
  }
  return { status: 200, challenge: null };
}

/**
 * The invariant alone, independent of the step-by-step model: with scopes required of a chain
 * with a verified reader, a principal was verified, and every principal a verified reader's step
 * found, with the credential on ctx at that step, grants every scope of the chain.
 */
function mayRun(steps: readonly Step[], original: Credential): boolean {
  const security = steps.filter((s) => s.kind !== 'user');
  const required = new Set(security.flatMap((s) => (s.kind === 'reader' ? [] : s.scopes)));
  if (!security.some((s) => s.reader !== MANUAL) || required.size === 0) return true;
  let c = original;
  const principals: (readonly Scope[])[] = [];
  for (const s of steps) {
    if (s.kind === 'user') {
      if (s.overwrite === 'credential') c = SWAPPED;
      continue;
    }
    if (s.reader === MANUAL || c.kind === 'none' || c.kind === 'basic') continue;
    const granted = c.kind === 'valid' ? grantOf(c, s.reader) : null;
    if (granted === null) return false;
    principals.push(granted);
  }
  return principals.length > 0 && principals.every((granted) => [...required].every((scope) => granted.includes(scope)));
}

const t = initTRPC.context<{ req?: unknown; headers?: Record<string, string> }>().create();

/** The application's own middlewares: each overwrites what a careless one might. */
const userMiddleware = (overwrite: Overwrite) =>
  t.middleware(({ getRawInput, next }) => {
    switch (overwrite) {
      case 'securityScopes':
        return next({ ctx: { securityScopes: { scopes: [], scopeStr: '' } } });
      case 'principal':
        return next({ ctx: { principal: { subject: 'mallory', scopes: [...SCOPES] } } });
      case 'token':
        return next({ ctx: { token: scopeToken('a', [...SCOPES]) } });
      case 'grantedScopes':
        return next({ ctx: { grantedScopes: new Set(SCOPES) } });
      case 'rawInput':
        // Another input reader for the next steps: tRPC gives them what a new call's would be.
        return next({ getRawInput: async () => getRawInput() });
      case 'credential':
        // Another credential for the next steps, on either face: the request's is left behind.
        return next({ ctx: { req: undefined, headers: { authorization: authorizationOf(SWAPPED)! } } });
      case 'nothing':
        return next();
    }
  });

interface Builder {
  use(middleware: unknown): Builder;
  concat(builder: unknown): Builder;
  query(resolver: () => unknown): unknown;
}

function buildProcedure(steps: readonly Step[], autoError: readonly [boolean, boolean], ran: { count: number }) {
  const scopes = Object.fromEntries(SCOPES.map((s) => [s, s]));
  const password = oauth2PasswordBearer({ tokenUrl: 'token', scopes, autoError: autoError[0], verify: grantVerifier(0) });
  const code = oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', scopes, autoError: autoError[1], verify: grantVerifier(1, { peek: true }) }); // answers synchronously, as a cache does
  const manual = oauth2PasswordBearer({ tokenUrl: 'token', scopes, schemeName: 'Manual', manualScopeCheck: true });
  const readers = [password, code, anyOf(password, code), manual] as const;
  let builder = t.procedure as unknown as Builder;
  for (const s of steps) {
    if (s.kind === 'reader' && s.via === 'concat') {
      builder = builder.concat(readers[s.reader].procedure);
      continue;
    }
    const middleware =
      s.kind === 'user'
        ? userMiddleware(s.overwrite)
        : s.kind === 'reader'
          ? readers[s.reader]
          : (readers[s.reader][s.kind] as (...names: string[]) => unknown)(...s.scopes);
    builder = s.via === 'use' ? builder.use(middleware) : builder.concat((t.procedure as unknown as Builder).use(middleware));
  }
  return builder.query(() => {
    ran.count++;
    return 'reached';
  });
}

/** One loopback server for the whole run, serving whichever router the current case built. */
let current: ReturnType<typeof createHTTPHandler> | undefined;
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => current!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
);

const outcomeOfError = (error: unknown): Outcome => {
  const cause = getOAuth2Error(error);
  if (cause) return { status: cause.status, challenge: cause.headers['WWW-Authenticate'] ?? null };
  return { status: error instanceof TRPCError ? 500 : -1, challenge: null };
};

describe('verified chains in every order', () => {
  it('never run the resolver unless the verified principal grants every accumulated scope, and answer as the model says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 7 }),
        fc.tuple(fc.boolean(), fc.boolean()),
        fc.array(credential, { minLength: 1, maxLength: 3 }),
        async (steps, autoError, credentials) => {
          const ran = { count: 0 };
          const router = t.router({ q: buildProcedure(steps, autoError, ran) as never }) as AnyTRPCRouter;
          const caller = t.createCallerFactory(router) as (ctx: object) => { q: () => Promise<unknown> };
          current = createHTTPHandler({ router, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() });

          for (const c of credentials) {
            const authorization = authorizationOf(c);
            const expected = model(steps, autoError, c);
            const allowed = mayRun(steps, c);
            if (expected.status === 200) expect(allowed, 'the model keeps the invariant').toBe(true);

            // createCaller
            ran.count = 0;
            const direct = await caller({ headers: authorization === undefined ? {} : { authorization } })
              .q()
              .then((value): Outcome => (expect(value).toBe('reached'), { status: 200, challenge: null }), outcomeOfError);
            expect(ran.count > 0 && !allowed, 'the resolver ran though the invariant forbids it').toBe(false);
            expect(direct).toEqual(expected);

            // tRPC's standalone adapter over loopback
            ran.count = 0;
            const response = await fetch(`${url}/q`, { headers: authorization === undefined ? {} : { authorization } });
            const body = (await response.json()) as { result?: { data: unknown } };
            expect(ran.count > 0 && !allowed, 'the resolver ran over HTTP though the invariant forbids it').toBe(false);
            expect({ status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual(expected);
            if (expected.status === 200) expect(body.result?.data).toBe('reached');
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
