/**
 * docs/contract.md#reading-the-authorization-header, where the header comes from: an adapter given
 * no `createContext` calls every procedure with `undefined` as ctx. A security step then has no
 * request to read; it answers a 500 that names the fix, on every face and in every arrangement,
 * never a 401 (the client's credential is not at fault) and never a TypeError of its internals.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyOf, oauth2PasswordBearer, type Principal } from '../src/index.js';
import { ADAPTERS, serveRouter, type RunningServer } from './support/serve.js';

const NO_CONTEXT = 'The call has no ctx: give the adapter a createContext that returns the request ({ req }) the security readers read';

// The router's own ctx type says nothing of a request: what `initTRPC.create()` gives.
const t = initTRPC.create();
const verify = async (): Promise<Principal> => ({ scopes: ['me'] });
const plain = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read you' } });
const verified = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read you' }, verify });
const other = oauth2PasswordBearer({ tokenUrl: '/other-token', scopes: { me: 'Read you' }, verify, schemeName: 'Other' });

/** Every kind of security step, first in its chain or after another. */
const router = t.router({
  plain: t.procedure.use(plain).query(() => 'plain'),
  optional: t.procedure.use(oauth2PasswordBearer({ tokenUrl: '/token', autoError: false })).query(() => 'optional'),
  verified: t.procedure.use(verified).query(() => 'verified'),
  scopesFirst: t.procedure.use(verified.requireScopes('me')).use(verified).query(() => 'scopes first'),
  withScopes: t.procedure.use(verified.withScopes('me')).query(() => 'with scopes'),
  anyOf: t.procedure.use(anyOf(verified, other)).query(() => 'any of'),
  open: t.procedure.query(() => 'open'),
});
const PROTECTED = ['plain', 'optional', 'verified', 'scopesFirst', 'withScopes', 'anyOf'] as const;

describe.each(ADAPTERS)('the %s adapter given no createContext', (adapter) => {
  const faults: string[] = [];
  let face: RunningServer;
  beforeAll(async () => {
    face = await serveRouter(router, adapter, { createContext: undefined, onError: ({ error }) => void faults.push(error.code) });
  });
  afterAll(() => face.close());

  it.each(PROTECTED.flatMap((path) => [undefined, 'Bearer good'].map((authorization) => ({ path, authorization }))))(
    '$path with $authorization: a 500 naming the fix, no challenge',
    async ({ path, authorization }) => {
      faults.length = 0;
      const response = await fetch(`${face.url}/${path}`, { headers: authorization === undefined ? {} : { authorization } });
      const body = (await response.json()) as { error: { message: string; data: { code: string } } };
      expect(response.status).toBe(500);
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(body.error.message).toBe(NO_CONTEXT);
      expect(body.error.data.code).toBe('INTERNAL_SERVER_ERROR');
      expect(faults).toEqual(['INTERNAL_SERVER_ERROR']);
    },
  );

  it('leaves a procedure without security alone', async () => {
    const response = await fetch(`${face.url}/open`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ result: { data: 'open' } });
  });
});

describe('createCaller given no ctx', () => {
  const caller = t.createCallerFactory(router)(undefined as never);

  it.each(PROTECTED)('%s rejects with the same fault', async (path) => {
    const failure = await caller[path]().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TRPCError);
    expect(failure).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: NO_CONTEXT });
  });

  it('still answers with a ctx that carries no request: no credential, so 401 where one is required', async () => {
    const anonymous = t.createCallerFactory(router)({});
    await expect(anonymous.optional()).resolves.toBe('optional');
    await expect(anonymous.verified()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
