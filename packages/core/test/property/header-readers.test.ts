import { initTRPC, TRPCError } from '@trpc/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getOAuth2Error, oauth2, oauth2AuthorizationCodeBearer, oauth2PasswordBearer } from '../../src/index.js';
import { bearerToken } from '../../src/readers/oauth2-bearer.js';
import { HEADER_TABLE } from '@trpc-oauth2/test-kit';
import { anyText, authorizationValue, fetchHeaderValue, longText } from './header-arbitraries.js';
import { asDelivered, modelBase, modelBearer } from './header-model.js';

const RUNS = { numRuns: 200 };

const t = initTRPC.context<{ req?: unknown; headers?: unknown }>().create();
const password = oauth2PasswordBearer({ tokenUrl: 'token' });
const code = oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token' });
const base = oauth2();
const router = t.router({
  password: t.procedure.use(password).query(({ ctx }) => ctx.token),
  passwordOptional: t.procedure.use(oauth2PasswordBearer({ tokenUrl: 'token', autoError: false })).query(({ ctx }) => ctx.token),
  code: t.procedure.use(code).query(({ ctx }) => ctx.token),
  codeOptional: t.procedure
    .use(oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', autoError: false }))
    .query(({ ctx }) => ctx.token),
  base: t.procedure.use(base).query(({ ctx }) => ctx.authorization),
  baseOptional: t.procedure.use(oauth2({ autoError: false })).query(({ ctx }) => ctx.authorization),
});
const createCaller = t.createCallerFactory(router);

const READERS: readonly { path: 'password' | 'code' | 'base'; model: (h: string | undefined) => string | null; status: 401 | 403; challenge: object }[] = [
  { path: 'password', model: modelBearer, status: 401, challenge: { 'WWW-Authenticate': 'Bearer' } },
  { path: 'code', model: modelBearer, status: 401, challenge: { 'WWW-Authenticate': 'Bearer' } },
  { path: 'base', model: modelBase, status: 403, challenge: {} },
];

const settle = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

/** Calls every reader with `ctx` and checks each outcome against the model for `header`. */
async function checkReaders(ctx: object, header: string | undefined) {
  const caller = createCaller(ctx);
  for (const { path, model, status, challenge } of READERS) {
    const expected = model(header);
    const strict = await settle(caller[path]());
    if (expected === null) {
      // The only acceptable failure: the reader's not-authenticated error, exactly.
      expect(strict.ok, `${path} must refuse ${JSON.stringify(header)}`).toBe(false);
      const error = (strict as { error: unknown }).error;
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).message).toBe('Not authenticated');
      expect(getOAuth2Error(error)).toMatchObject({ code: 'ERR_NOT_AUTHENTICATED', status, headers: challenge });
    } else {
      expect(strict).toEqual({ ok: true, value: expected });
    }
    expect(await settle(caller[`${path}Optional`]())).toEqual({ ok: true, value: expected });
  }
}

describe('header readers against the model of docs/contract.md#reading-the-authorization-header', () => {
  it('the model agrees with the decision table', () => {
    for (const row of HEADER_TABLE) {
      expect(modelBearer(row.header), JSON.stringify(row.header)).toBe(row.bearer);
      expect(modelBase(row.header === undefined ? undefined : asDelivered(row.header)), JSON.stringify(row.header)).toBe(row.base);
    }
  });

  it('bearerToken gives the model’s token for any string', () => {
    fc.assert(
      fc.property(fc.oneof(authorizationValue, fc.constant(undefined)), (header) => {
        expect(bearerToken(header)).toBe(modelBearer(header));
      }),
      { numRuns: 1000 },
    );
  });

  it('every reader, given a Node header record, does what the model says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(authorizationValue, fc.constant(undefined)), async (header) => {
        await checkReaders({ headers: header === undefined ? {} : { authorization: header } }, header);
      }),
      RUNS,
    );
  });

  it('every reader, given a Fetch Request, reads the value as Fetch delivers it', async () => {
    await fc.assert(
      fc.asyncProperty(fetchHeaderValue, async (header) => {
        const req = new Request('http://127.0.0.1/', { headers: { authorization: header } });
        const delivered = req.headers.get('authorization') ?? undefined;
        expect(delivered).toBe(asDelivered(header));
        await checkReaders({ req }, delivered);
      }),
      RUNS,
    );
  });

  it('a header sent twice reads as both values joined, never as one of them alone', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(authorizationValue, anyText), { minLength: 2, maxLength: 4 }), async (values) => {
        const joined = values.join(', ');
        // A Node record holding the list, and a Node request whose record kept only the first (as Node does).
        await checkReaders({ req: { headers: { authorization: values } } }, joined);
        const rawHeaders = values.flatMap((value, i) => [i % 2 === 0 ? 'Authorization' : 'authorization', value]);
        await checkReaders({ req: { headers: { authorization: values[0] }, rawHeaders } }, joined);
        const first = modelBearer(values[0]);
        // Joining puts ", " and the next value after the first token: it can never be that token.
        if (first !== null && first !== '') expect(modelBearer(joined)).not.toBe(first);
      }),
      RUNS,
    );
  });

  it('very long values are read in full', async () => {
    await fc.assert(
      fc.asyncProperty(longText, async (credential) => {
        await checkReaders({ headers: { authorization: `Bearer ${credential}` } }, `Bearer ${credential}`);
      }),
      { numRuns: 30 },
    );
  });
});
