/**
 * A router of protected subscriptions, and a token table a test changes while streams run: a
 * token is issued with scopes and an expiry, and revoked by deleting it (as an introspection
 * endpoint would answer `active: false` from then on).
 */
import { initTRPC, tracked, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { oauth2PasswordBearer, type Principal, type VerifyOptions } from '../../src/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';

/** Tokens the verifier accepts, by token. */
export class TokenTable {
  private readonly tokens = new Map<string, Principal>();
  /** How often the verifier was asked, per token. */
  readonly asked = new Map<string, number>();
  private next = 0;

  /** A new token granting `scopes`, valid for `lifetimeMs` (from now). */
  issue(scopes: readonly string[], lifetimeMs = 60_000): string {
    const token = `token-${++this.next}`;
    this.tokens.set(token, { scopes, expiresAt: (Date.now() + lifetimeMs) / 1000 });
    return token;
  }

  revoke(token: string): void {
    this.tokens.delete(token);
  }

  /** The token now grants `scopes` (an administrator narrowed the grant). */
  regrant(token: string, scopes: readonly string[]): void {
    const principal = this.tokens.get(token);
    if (principal !== undefined) this.tokens.set(token, { ...principal, scopes });
  }

  /** Tokens whose verification fails as an unreachable introspection endpoint's does. */
  readonly unreachable = new Set<string>();

  verify = async (token: string): Promise<Principal> => {
    this.asked.set(token, (this.asked.get(token) ?? 0) + 1);
    if (this.unreachable.has(token)) throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'The introspection endpoint is unreachable' });
    const principal = this.tokens.get(token);
    if (principal === undefined) throw invalidTokenError('The access token is not active');
    if (principal.expiresAt! * 1000 <= Date.now()) throw invalidTokenError('The access token expired');
    return principal;
  };
}

export const SCOPES = { me: 'Read me', items: 'Read items', admin: 'Administer' } as const;
export type Scope = keyof typeof SCOPES;

/** Events numbered from 1, resuming after `lastEventId`, one every `everyMs`. */
export async function* numbered(lastEventId: string | null | undefined, everyMs: number, signal: AbortSignal | undefined) {
  let n = lastEventId == null ? 0 : Number(lastEventId);
  while (!signal?.aborted) {
    await new Promise<void>((resolve) => {
      const onAbort = () => (clearTimeout(timer), resolve());
      const timer = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), everyMs);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    if (signal?.aborted) return;
    n += 1;
    yield tracked(String(n), { n });
  }
}

const input = z.object({ everyMs: z.number().int().min(1).max(1000).default(10), lastEventId: z.string().nullish() }).optional();

export interface StreamsRouterOptions {
  /** The verifier the reader uses instead of the table's own (e.g. the table's behind a cache). */
  verify?: (token: string, options?: VerifyOptions) => Promise<Principal>;
  /** Re-ask the verifier this often (milliseconds) while a stream runs. */
  recheckInterval?: number;
  /** Read a credential from the URL's connection params. */
  allowCredentialInUrl?: boolean;
}

/** A reader over `table`, and a router whose subscriptions require scopes of it. */
export function streamsRouter(table: TokenTable, options: StreamsRouterOptions = {}) {
  const t = initTRPC.context<{ req: unknown; info: unknown }>().create();
  const { verify = table.verify, ...readerOptions } = options;
  const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: SCOPES, verify, ...readerOptions });
  /** How many streams were opened with each token: a refused call opens none. */
  const opened = new Map<string, number>();
  const router = t.router({
    items: t.procedure
      .use(auth.withScopes('items'))
      .input(input)
      .subscription(({ ctx, input, signal }) => {
        opened.set(ctx.token, (opened.get(ctx.token) ?? 0) + 1);
        return numbered(input?.lastEventId, input?.everyMs ?? 10, signal);
      }),
    /** The subject's scopes, once: a query through the same reader. */
    whoami: t.procedure.use(auth).query(({ ctx }) => ({ scopes: [...ctx.principal.scopes] })),
  });
  return { auth, router, opened };
}

export type StreamsRouter = ReturnType<typeof streamsRouter>['router'];
