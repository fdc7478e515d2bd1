/**
 * docs/contract.md#subscriptions: a stream behind two verified readers ends when the earliest
 * `expiresAt` of their principals passes, with the refusal of the reader whose principal expired
 * then (its `makeTokenExpiredError`, its challenge naming its own `resource_metadata`), whichever
 * step of the chain it is: a client that follows the challenge asks the authorization server of
 * the credential that ended, not that of the one still valid.
 */
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { oauth2AuthorizationCodeBearer, oauth2PasswordBearer, type Principal } from '../src/index.js';
import { oauth2ErrorData } from '../src/token-endpoint/index.js';
import { serveStreams, streamClient, TRANSPORTS, type StreamServers } from './support/streams.js';

vi.setConfig({ testTimeout: 30_000 });

const LONG = 'https://long.example.test/.well-known/oauth-protected-resource';
const SHORT = 'https://short.example.test/.well-known/oauth-protected-resource';

/** Each reader's principal: the one behind `SHORT` expires `ms` after the call opened, the other an hour later. */
const verifyFor = (lifetime: 'short' | 'long') => async (): Promise<Principal> => ({
  scopes: ['feed'],
  expiresAt: Date.now() / 1000 + (lifetime === 'short' ? 0.4 : 3600),
});
const longReader = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { feed: 'Read the feed' }, resourceMetadata: LONG, verify: verifyFor('long') });
const shortReader = oauth2AuthorizationCodeBearer({
  authorizationUrl: 'https://as.example.test/authorize',
  tokenUrl: 'https://as.example.test/token',
  scopes: { feed: 'Read the feed' },
  resourceMetadata: SHORT,
  verify: verifyFor('short'),
});

const t = initTRPC
  .context<{ req?: unknown; info?: unknown }>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });
const feed = async function* () {
  for (let n = 0; ; n++) {
    yield n;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const router = t.router({
  shortFirst: t.procedure.use(shortReader.withScopes('feed')).use(longReader.withScopes('feed')).subscription(feed),
  shortSecond: t.procedure.use(longReader.withScopes('feed')).use(shortReader.withScopes('feed')).subscription(feed),
});

let servers: StreamServers;
beforeAll(async () => {
  servers = await serveStreams(router);
});
afterAll(() => servers.close());

describe.each(TRANSPORTS)('a stream behind two readers over %s', (transport) => {
  it.each(['shortFirst', 'shortSecond'] as const)('%s: ends with the refusal of the reader whose principal expired', async (procedure) => {
    const { client, close } = streamClient<typeof router>(servers, transport, { authorization: () => 'Bearer token' });
    try {
      const ended = await new Promise<{ message: string; challenge: unknown; events: number }>((resolve) => {
        let events = 0;
        const subscription = client[procedure].subscribe(undefined, {
          onData: () => void events++,
          onError: (error) => {
            subscription.unsubscribe();
            const data = error.data as { oauth2?: { challenge?: unknown } } | undefined;
            resolve({ message: error.message, challenge: data?.oauth2?.challenge, events });
          },
        });
      });
      expect(ended.events).toBeGreaterThan(0);
      expect(ended).toMatchObject({
        message: 'The access token expired',
        challenge: `Bearer error="invalid_token", error_description="The access token expired", resource_metadata="${SHORT}"`,
      });
    } finally {
      await close();
    }
  });
});
