import { createTRPCClient, createWSClient, httpSubscriptionLink, TRPCClientError, wsLink } from '@trpc/client';
import { EventSource } from 'eventsource';
import superjson from 'superjson';
import { WebSocket } from 'ws';
import type { DPoPHandle } from 'oauth4webapi';
import type { OAuth2ErrorData } from '@trpc-oauth2/core/token-endpoint';
import type { AppRouter } from '../server/app-router.js';
import { demoClient } from './demo-client.js';
import { dpopFetch, dpopProofFor, rememberDPoPNonce } from './dpop.js';
import { printable } from './terminal-text.js';

/**
 * The transports a subscription of the demo travels on: `ws` (tRPC's `wsLink`, the token in the
 * connection params) or `sse` (tRPC's `httpSubscriptionLink`, the token in the `Authorization`
 * header, sent by an `EventSource` that sends headers).
 *
 * @example
 * ```ts
 * const transport: StreamTransport = 'sse';
 * ```
 */
export type StreamTransport = 'ws' | 'sse';

/**
 * How a stream sends a DPoP-bound token (RFC 9449): oauth4webapi's handle of its key, which signs
 * each request's proof (over WebSockets, each connection's opening request's) with the nonce it
 * holds.
 *
 * @example
 * ```ts
 * const dpop: StreamDPoP = { handle };
 * ```
 */
export interface StreamDPoP {
  handle: DPoPHandle;
}

/**
 * A typed tRPC client of the demo for subscriptions on `transport`, sending `token` as that
 * transport carries a credential (never in the URL: the server refuses it there); with `dpop`,
 * as a DPoP-bound token: over SSE each request's proof, over WebSockets each connection's opening
 * request's, a new one for every connection tRPC opens, its reconnects included.
 *
 * @example
 * ```ts
 * const { client, close } = streamClient('http://127.0.0.1:3000', 'ws', accessToken);
 * client.users.watchItems.subscribe({}, { onData: (event) => console.log(event.data.title) });
 * ```
 */
export function streamClient(baseUrl: string, transport: StreamTransport, token: string, dpop?: StreamDPoP) {
  const authorization = `${dpop === undefined ? 'Bearer' : 'DPoP'} ${token}`;
  if (transport === 'ws') {
    const url = `${baseUrl.replace(/^http/, 'ws')}/trpc`;
    // The server accepts a proof for one connection only (docs/contract.md#dpop): a reconnect
    // sending the first one again is refused as a replay. tRPC asks for the URL before it opens
    // each connection, the one async step before the socket: the proof is made there, and the
    // socket takes it (once: it is never sent twice).
    let proof: string | undefined;
    // The `ws` package sends headers with the opening request, where the proof goes.
    const Socket =
      dpop === undefined
        ? WebSocket
        : class extends WebSocket {
            constructor(url: string | URL, protocols?: string | string[]) {
              const headers = proof === undefined ? {} : { dpop: proof };
              proof = undefined;
              super(url, protocols, { headers });
            }
          };
    const wsClient = createWSClient({
      url:
        dpop === undefined
          ? url
          : async () => {
              proof = await dpopProofFor(dpop.handle, token, 'GET', new URL(`${baseUrl}/trpc`));
              return url;
            },
      WebSocket: Socket as unknown as typeof globalThis.WebSocket,
      connectionParams: { authorization },
    });
    return { client: createTRPCClient<AppRouter>({ links: [wsLink({ client: wsClient, transformer: superjson })] }), close: () => wsClient.close() };
  }
  const link = httpSubscriptionLink({
    url: `${baseUrl}/trpc`,
    transformer: superjson,
    EventSource,
    eventSourceOptions: {
      fetch:
        dpop === undefined
          ? (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization } })
          : (dpopFetch(dpop.handle, () => token) as never),
    },
  });
  return { client: createTRPCClient<AppRouter>({ links: [link] }), close: async () => undefined };
}

/**
 * What `watchItems` needs: where, how, the session's token and how to refresh it, where to print.
 *
 * @example
 * ```ts
 * const options: WatchOptions = { url, transport: 'ws', token: () => session, refresh, out: console.log };
 * ```
 */
export interface WatchOptions {
  url: string;
  transport: StreamTransport;
  /**
   * The access token now, when it expires (seconds since the epoch; `null`: the server did not
   * say) and, when known, the scopes it grants (space-delimited): a refusal for a missing scope
   * then names the ones it lacks, not every one the stream needs.
   */
  token: () => { accessToken: string; expiresAt: number | null; scope?: string | undefined };
  /** oauth4webapi's handle of the key the tokens are bound to, when they are DPoP-bound. */
  dpop?: DPoPHandle;
  /** Gets new tokens (the refresh_token grant) and answers the new access token's. */
  refresh: () => Promise<{ accessToken: string; expiresAt: number | null; scope?: string | undefined }>;
  out: (line: string) => void;
  /** Stop after this many items (default: never). */
  count?: number;
  /** Stops watching. */
  signal?: AbortSignal;
}

/**
 * Why one connection of the watch ended: done, time to refresh, the token refused
 * (`invalid_token`), or a DPoP nonce asked for (`use_dpop_nonce`), with the refusal that asked.
 */
type LegEnd = 'done' | 'refresh' | 'expired' | { readonly nonce: string; readonly refusal: Error };

const now = () => Date.now() / 1000;

/** The longest a timer waits: Node fires one set for longer after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When to refresh: a quarter of the token's remaining life before it expires, at most 30 s before;
 * for a token that lives longer than a timer can wait (an `expires_in` of a month), as late as a
 * timer can wait, rather than at once, which would refresh and reconnect without end. A token of
 * unknown lifetime (no `expires_in`) is not refreshed ahead (`undefined`): only when the server
 * refuses it.
 */
const refreshDelayMs = (expiresAt: number | null): number | undefined => {
  if (expiresAt === null) return undefined;
  const remainingMs = Math.max(0, (expiresAt - now()) * 1000);
  return Math.min(MAX_TIMER_MS, remainingMs - Math.min(30_000, remainingMs / 4));
};

/** What the server's refusal says (`data.oauth2`, docs/contract.md#subscriptions); `undefined` for an error that carries none. */
const oauth2Of = (error: unknown): OAuth2ErrorData | undefined =>
  error instanceof TRPCClientError ? ((error.data as { oauth2?: OAuth2ErrorData | null } | undefined)?.oauth2 ?? undefined) : undefined;

/** The scopes an `insufficient_scope` challenge names (RFC 6750 §3), `undefined` when it names none. */
const scopeOf = (challenge: string | null): string | undefined => (challenge === null ? undefined : /(?:^|[\s,])scope="([^"]*)"/.exec(challenge)?.[1]);

/**
 * How a watch answers a failed call: a token the server no longer takes (`invalid_token`, in
 * either scheme) is renewed; a nonce asked for (`use_dpop_nonce`) goes in the next connection's
 * proof; a token without the scope the stream needs is an error naming that scope; any other
 * error is the error as it came (a 401 for a refused DPoP proof is no expired token: new tokens
 * would not cure it).
 */
function legEndOf(error: unknown, dpop: boolean, granted: string | undefined): LegEnd | Error {
  const oauth2 = oauth2Of(error);
  const asItCame = error instanceof Error ? error : new Error(String(error));
  if (oauth2 === undefined) return asItCame;
  if (oauth2.error === 'invalid_token') return 'expired';
  if (oauth2.error === 'use_dpop_nonce' && dpop && oauth2.dpopNonce !== null) return { nonce: oauth2.dpopNonce, refusal: asItCame };
  if (oauth2.error === 'insufficient_scope') {
    const needed = scopeOf(oauth2.challenge)?.split(' ');
    const has = new Set(granted?.split(' '));
    const missing = needed?.filter((scope) => !has.has(scope));
    const scope = missing === undefined || missing.length === 0 ? needed?.join(' ') : missing.join(' ');
    return new Error(
      scope === undefined
        ? `The access token lacks a scope the stream needs (${oauth2.error_description}): log in again asking for it.`
        : `The access token lacks the scope "${scope}" the stream needs: log in again asking for it (--scope).`,
    );
  }
  return asItCame;
}

/**
 * Prints the user's items as they are added, for as long as asked: the items there already, then
 * each new one. Before the access token expires it gets new tokens and reconnects with the fresh
 * one, resuming after the last item it printed (tRPC's `lastEventId`); a stream the server ends
 * because the token expired anyway (the machine slept) is resumed the same way. No item is lost
 * or printed twice. It reads a refusal by its `data.oauth2` (docs/contract.md#subscriptions):
 * `invalid_token` is renewed as above, `use_dpop_nonce` reconnects with the nonce in the new
 * proof, `insufficient_scope` rejects naming the scope, and any other refusal rejects as it came.
 * Answers how many items it printed.
 *
 * @example
 * ```ts
 * await watchItems({ url, transport: 'sse', token: () => session, refresh, out: console.log, count: 10 });
 * ```
 */
export async function watchItems(options: WatchOptions): Promise<number> {
  const { signal } = options;
  let lastEventId: string | undefined;
  let printed = 0;
  let refusedInARow = 0;
  let noncesInARow = 0;
  while (!signal?.aborted) {
    let token = options.token();
    const delay = refreshDelayMs(token.expiresAt);
    if (delay !== undefined && delay <= 0) token = await options.refresh();
    const before = printed;
    const end = await leg(token, lastEventId, (id, title) => {
      lastEventId = id;
      printed += 1;
      options.out(`item ${printable(id)}: ${printable(title)}`);
      return options.count !== undefined && printed >= options.count;
    });
    if (end === 'done') break;
    if (typeof end === 'object') {
      // One nonce asked for is answered with a new connection whose proof carries it; asked for
      // again at once, with nothing printed between, the server does not take the nonces it gives.
      noncesInARow = printed === before ? noncesInARow + 1 : 1;
      if (noncesInARow > 1) throw end.refusal;
      await rememberDPoPNonce(options.dpop!, new URL(`${options.url}/trpc`), end.nonce);
      continue;
    }
    noncesInARow = 0;
    // Two refusals in a row with nothing printed and a fresh token: the server will not have it.
    refusedInARow = end === 'expired' && printed === before ? refusedInARow + 1 : 0;
    if (refusedInARow > 1) throw new Error('The server refuses the fresh access token: log in again.');
    await options.refresh();
    options.out(`(new access token: resuming${lastEventId === undefined ? '' : ` after item ${printable(lastEventId)}`})`);
  }
  return printed;

  /**
   * The DPoP of one connection, its proofs carrying the API's current nonce, which one call
   * through the handle fetches first (the handle keeps it): a stream's refusal comes inside the
   * stream (SSE answers 200 first) or its socket, where no `DPoP-Nonce` header travels.
   */
  async function streamDPoP(accessToken: string): Promise<StreamDPoP | undefined> {
    const handle = options.dpop;
    if (handle === undefined) return undefined;
    await demoClient(options.url, () => accessToken, handle).users.me.query();
    return { handle };
  }

  /** One connection with `token`, from `after`, until it is time to refresh, the token is refused, or the watch is done. */
  async function leg(token: { accessToken: string; expiresAt: number | null; scope?: string | undefined }, after: string | undefined, print: (id: string, title: string) => boolean): Promise<LegEnd> {
    let dpop: StreamDPoP | undefined;
    try {
      dpop = await streamDPoP(token.accessToken);
    } catch (error) {
      // The call that fetches the nonce is the first to meet a token the server no longer takes.
      const end = legEndOf(error, true, token.scope);
      if (end instanceof Error) throw end;
      return end;
    }
    const { client, close } = streamClient(options.url, options.transport, token.accessToken, dpop);
    return new Promise<LegEnd>((resolve, reject) => {
      let finished = false;
      const finish = (outcome: LegEnd | Error) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        subscription.unsubscribe();
        void close().finally(() => (outcome instanceof Error ? reject(outcome) : resolve(outcome)));
      };
      const onAbort = () => finish('done');
      const delay = refreshDelayMs(token.expiresAt);
      const timer = delay === undefined ? undefined : setTimeout(() => finish('refresh'), delay);
      const subscription = client.users.watchItems.subscribe(after === undefined ? {} : { lastEventId: after }, {
        onData(event) {
          // Ids only grow: one at or before the last printed was printed already.
          if (after !== undefined && Number(event.id) <= Number(after)) return;
          after = event.id;
          if (print(event.id, event.data.title)) finish('done');
        },
        onError(error) {
          finish(legEndOf(error, dpop !== undefined, token.scope));
        },
        onComplete: () => finish('done'),
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
