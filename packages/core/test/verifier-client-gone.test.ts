/**
 * docs/contract.md#verified-readers, Refusals: a client that goes away while the verifier works
 * (a slow introspection, a key set fetched) is not a fault of the server: the call ends with
 * tRPC's CLIENT_CLOSED_REQUEST, so an `onError` that reports 5xx stays quiet. A refusal the
 * verifier gives is still a refusal, and a failure while the client is still there is still a 500.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initTRPC, type TRPCError } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal, type VerifyOptions } from '../src/index.js';
import { invalidTokenError } from '../src/errors-entry.js';

const t = initTRPC.context<{ req: unknown }>().create();

/** Serves `verify` behind a reader; `run` gets the port; answers the codes `onError` saw. */
async function serving(verify: (token: string, options?: VerifyOptions) => Promise<Principal>, run: (port: number) => Promise<void>): Promise<string[]> {
  const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read you' }, verify });
  const router = t.router({ me: t.procedure.use(auth).query(() => 'me') });
  const seen: string[] = [];
  const server = createHTTPServer({ router, createContext: ({ req }) => ({ req }), onError: ({ error }: { error: TRPCError }) => void seen.push(error.code) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run((server.address() as AddressInfo).port);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return seen;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Sends a query and leaves after `ms`, or reads the answer's status when `ms` is undefined. */
const call = (port: number, ms?: number) =>
  new Promise<number | 'left'>((resolve) => {
    const sent = request({ host: '127.0.0.1', port, path: '/me', headers: { authorization: 'Bearer slow' } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sent.on('error', () => resolve('left'));
    sent.end();
    if (ms !== undefined) setTimeout(() => (sent.destroy(), resolve('left')), ms);
  });

/** A verifier that answers after 200 ms, or gives up with the signal's reason when it aborts. */
const slow = (answer: () => Principal) => (_token: string, options?: VerifyOptions) =>
  new Promise<Principal>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        resolve(answer());
      } catch (error) {
        reject(error);
      }
    }, 200);
    options?.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(options.signal!.reason)), { once: true });
  });

describe('a client gone while the verifier works', () => {
  it('ends the call with CLIENT_CLOSED_REQUEST, not a server fault', async () => {
    const seen = await serving(slow(() => ({ scopes: ['me'] })), async (port) => {
      expect(await call(port, 50)).toBe('left');
    });
    expect(seen).toEqual(['CLIENT_CLOSED_REQUEST']);
  });

  it('keeps a refusal a refusal, and a failure while the client waits a 500', async () => {
    let status: number | 'left' = 0;
    const refused = await serving(slow(() => { throw invalidTokenError('The access token is not active'); }), async (port) => {
      status = await call(port);
    });
    expect({ status, refused }).toEqual({ status: 401, refused: ['UNAUTHORIZED'] });
    const failed = await serving(slow(() => { throw new Error('the database is down'); }), async (port) => {
      status = await call(port);
    });
    expect({ status, failed }).toEqual({ status: 500, failed: ['INTERNAL_SERVER_ERROR'] });
  });
});
