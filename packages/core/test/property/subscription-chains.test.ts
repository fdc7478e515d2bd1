/**
 * The invariant of docs/contract.md#subscriptions, over generated chains and every transport: a
 * subscription's stream never yields (its resolver never even runs) unless every verified
 * principal of the chain grants every scope the chain accumulated — whatever the order of the
 * readers, `requireScopes`, `withScopes`, `anyOf` and the application's own middlewares — and a
 * stream that may run does stream. Each case is subscribed to through `createCaller`, `wsLink`
 * on tRPC's WebSocket server, and `httpSubscriptionLink` on the standalone and fetch adapters.
 */
import { initTRPC, tracked, type AnyTRPCRouter } from '@trpc/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyOf, oauth2AuthorizationCodeBearer, oauth2PasswordBearer } from '../../src/index.js';
import { scopeToken, scopeTokenVerifier } from '../support/scope-tokens.js';
import { record, serveStreams, streamClient, TRANSPORTS, type StreamServers, type Transport } from '../support/streams.js';

const SCOPES = ['me', 'items', 'admin'] as const;
type Scope = (typeof SCOPES)[number];
const ISSUERS = ['a', 'b'] as const;
type Which = 0 | 1;
/** One of the two readers, or (2) `anyOf` of both. */
type ReaderIndex = Which | 2;

type Step =
  | { kind: 'reader'; reader: ReaderIndex }
  | { kind: 'requireScopes' | 'withScopes'; reader: ReaderIndex; scopes: Scope[] }
  | { kind: 'user'; overwrite: 'principal' | 'securityScopes' | 'nothing' };
type Credential = { kind: 'none' } | { kind: 'refused' } | { kind: 'valid'; issuer: Which; scopes: Scope[] };

const readerIndex = fc.constantFrom<ReaderIndex>(0, 1, 2);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('reader' as const), reader: readerIndex }),
  fc.record({ kind: fc.constantFrom('requireScopes' as const, 'withScopes' as const), reader: readerIndex, scopes: fc.subarray([...SCOPES], { minLength: 1 }) }),
  fc.record({ kind: fc.constant('user' as const), overwrite: fc.constantFrom('principal' as const, 'securityScopes' as const, 'nothing' as const) }),
);
const credential: fc.Arbitrary<Credential> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.constant({ kind: 'refused' as const }),
  fc.record({ kind: fc.constant('valid' as const), issuer: fc.constantFrom<Which>(0, 1), scopes: fc.subarray([...SCOPES]) }),
  fc.record({ kind: fc.constant('valid' as const), issuer: fc.constantFrom<Which>(0, 1), scopes: fc.subarray([...SCOPES]) }),
);

const authorizationOf = (c: Credential): string | undefined =>
  c.kind === 'none' ? undefined : c.kind === 'refused' ? 'Bearer forged.token' : `Bearer ${scopeToken(ISSUERS[c.issuer], c.scopes)}`;

/**
 * Whether the stream may run, from the invariant alone: with scopes required by a chain that has
 * a verified reader, only a credential every reader of the chain accepts and that grants them all.
 * Without required scopes, a reader still refuses a missing or refused credential (they all refuse
 * by default here).
 */
function mayStream(steps: readonly Step[], c: Credential): boolean {
  const security = steps.filter((s) => s.kind !== 'user');
  if (security.length === 0) return true;
  if (c.kind !== 'valid') return false;
  const readers = new Set(security.map((s) => s.reader));
  const required = new Set(security.flatMap((s) => (s.kind === 'reader' ? [] : s.scopes)));
  return [...readers].every((r) => r === 2 || r === c.issuer) && [...required].every((s) => c.scopes.includes(s));
}

const t = initTRPC.context<{ req?: unknown; info?: unknown; headers?: Record<string, string> }>().create();

const userMiddleware = (overwrite: 'principal' | 'securityScopes' | 'nothing') =>
  t.middleware(({ next }) => {
    if (overwrite === 'principal') return next({ ctx: { principal: { subject: 'mallory', scopes: [...SCOPES] } } });
    if (overwrite === 'securityScopes') return next({ ctx: { securityScopes: { scopes: [], scopeStr: '' } } });
    return next();
  });

interface Builder {
  use(middleware: unknown): Builder;
  subscription(resolver: (opts: { signal?: AbortSignal }) => AsyncIterable<unknown>): unknown;
}

/** What the resolvers of the current case did. */
const ran = { opened: 0, yielded: 0 };

function buildRouter(steps: readonly Step[]): AnyTRPCRouter {
  const scopes = Object.fromEntries(SCOPES.map((s) => [s, s]));
  const password = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: scopeTokenVerifier(ISSUERS[0]) });
  const code = oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', scopes, verify: scopeTokenVerifier(ISSUERS[1], { peek: true }) });
  const readers = [password, code, anyOf(password, code)] as const;
  let builder = t.procedure as unknown as Builder;
  for (const s of steps) {
    const middleware =
      s.kind === 'user' ? userMiddleware(s.overwrite) : s.kind === 'reader' ? readers[s.reader] : (readers[s.reader][s.kind] as (...names: string[]) => unknown)(...s.scopes);
    builder = builder.use(middleware);
  }
  const stream = builder.subscription(async function* ({ signal }) {
    ran.opened++;
    for (let n = 1; !signal?.aborted; n++) {
      ran.yielded++;
      yield tracked(String(n), n);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });
  return t.router({ s: stream as never });
}

let current: AnyTRPCRouter = t.router({});
let servers: StreamServers;
beforeAll(async () => {
  servers = await serveStreams(() => current);
});
afterAll(() => servers.close());

/** Subscribes on `transport` and answers whether an event arrived before the stream ended. */
async function streamed(transport: Transport | 'caller', authorization: string | undefined): Promise<boolean> {
  if (transport === 'caller') {
    const caller = t.createCallerFactory(current)({ headers: authorization === undefined ? {} : { authorization } }) as { s: () => Promise<AsyncIterable<unknown>> };
    try {
      const iterator = (await caller.s())[Symbol.asyncIterator]();
      const first = await iterator.next();
      await iterator.return?.();
      return !first.done;
    } catch {
      return false;
    }
  }
  const { client, close } = streamClient<AnyTRPCRouter>(servers, transport, { authorization: () => authorization });
  const { s } = client as unknown as { s: { subscribe: Parameters<typeof record<unknown>>[0] } };
  const recorded = record<unknown>((input, opts) => s.subscribe(input, opts));
  const outcome = await Promise.race([recorded.received(1).then(() => true), recorded.ended.then(() => false)]);
  recorded.stop();
  await close();
  return outcome;
}

describe('subscriptions through generated chains, on every transport', () => {
  it('never yield to a principal without the chain scopes, and stream when the invariant allows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 5 }), credential, fc.constantFrom<Transport | 'caller'>('caller', ...TRANSPORTS), async (steps, c, transport) => {
        current = buildRouter(steps);
        ran.opened = 0;
        ran.yielded = 0;
        const allowed = mayStream(steps, c);
        const got = await streamed(transport, authorizationOf(c));
        if (got) expect(allowed, `events arrived over ${transport} though the invariant forbids it`).toBe(true);
        if (!allowed) expect(ran.opened, 'the resolver ran though the invariant forbids it').toBe(0);
        expect(got, `a stream the invariant allows did not stream over ${transport}`).toBe(allowed);
      }),
      { numRuns: 120 },
    );
  }, 120_000);
});
