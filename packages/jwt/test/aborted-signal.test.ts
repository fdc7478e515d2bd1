/**
 * A verification asked with a signal that aborted already (the client went away before its turn)
 * answers with the signal's reason at once; the work it set off still runs, and whatever it
 * settles with later is nobody's unhandled rejection: in Node an unhandled rejection ends the
 * process, so a client that leaves early must not be able to cause one (docs/contract.md#verified-readers).
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair } from 'jose';
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheVerifier, type Principal, type VerifyOptions } from '../src/index.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';
import { verifyOptions } from './support/verify-options.js';

const gone = () => {
  const controller = new AbortController();
  controller.abort(new Error('the client went away'));
  return verifyOptions(controller.signal);
};
/** Lets every pending reaction, and Node's unhandled-rejection check after them, run. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

let unhandled: unknown[] = [];
const listener = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', listener);
});
afterEach(() => {
  process.off('unhandledRejection', listener);
});

describe('a verification asked after its signal aborted', () => {
  it('cacheVerifier: answers the reason, and its verifier refusing later is nobody’s unhandled rejection', async () => {
    const refusing = async (_token: string, _options?: VerifyOptions): Promise<Principal> => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw invalidTokenError('The access token is not active');
    };
    const verify = cacheVerifier(refusing, { maxEntries: 10 });
    await expect(verify('a-token', gone())).rejects.toThrow('the client went away');
    await settled();
    expect(unhandled).toEqual([]);
  });

  it.each(VERIFICATION_PATHS)('jwtVerifier ($name): answers the reason, and the refused token is nobody’s unhandled rejection', async (path) => {
    const { publicKey } = await generateKeyPair('ES256');
    const verify = path.jwtVerifier({ key: publicKey, algorithms: ['ES256'], issuer: 'https://issuer.example', audience: 'https://api.example' });
    await expect(verify('not.a.token', gone())).rejects.toThrow('the client went away');
    await settled();
    expect(unhandled).toEqual([]);
  });
});

it('a client that leaves before the reader runs causes no unhandled rejection in the server (tRPC standalone)', async () => {
  const { publicKey } = await generateKeyPair('ES256');
  const auth = oauth2PasswordBearer({
    tokenUrl: '/token',
    scopes: { me: 'Read you' },
    verify: cacheVerifier(VERIFICATION_PATHS[0]!.jwtVerifier({ key: publicKey, algorithms: ['ES256'], issuer: 'https://issuer.example', audience: 'https://api.example' }), { maxEntries: 10 }),
  });
  const t = initTRPC.context<{ req: unknown }>().create();
  const router = t.router({ me: t.procedure.use(auth).query(({ ctx }) => ctx.principal) });
  let contexts = 0;
  // The context takes a while: the client is gone by the time the reader asks the verifier.
  const server = createHTTPServer({ router, createContext: async ({ req }) => (contexts++, await new Promise((resolve) => setTimeout(resolve, 100)), { req }) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const sent = request({ host: '127.0.0.1', port, path: '/me', headers: { authorization: 'Bearer not.a.token' } });
      sent.on('error', () => resolve());
      sent.end(() => setTimeout(() => (sent.destroy(), resolve()), 20));
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(contexts).toBe(1);
    expect(unhandled).toEqual([]);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
