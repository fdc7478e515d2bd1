// A refusal inside a streamed batch (`trpc-accept: application/jsonl`, httpBatchStreamLink):
// tRPC sends the 200 and its headers before any call of the batch runs, so no refusal can set the
// status or `WWW-Authenticate`; the client reads the refusal from the error's data instead
// (docs/contract.md#challenges). This pins that documented limitation on tRPC's two adapters.
import { createTRPCClient, httpBatchLink, httpBatchStreamLink, TRPCClientError, type TRPCLink } from '@trpc/client';
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer } from '../src/index.js';
import { oauth2ErrorData } from '../src/token-endpoint/index.js';
import { ADAPTERS, serveRouter, type RunningServer } from './support/serve.js';
import { scopeToken, scopeTokenVerifier } from './support/scope-tokens.js';

const t = initTRPC.create({
  errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }),
});
const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Me', admin: 'Admin' }, verify: scopeTokenVerifier('own') });
const router = t.router({
  open: t.procedure.query(() => 'open'),
  secret: t.procedure.use(auth).query(() => 'secret'),
  admin: t.procedure.use(auth.withScopes('admin')).query(() => 'admin'),
});

const STREAM = { 'trpc-accept': 'application/jsonl' };

describe.each(ADAPTERS)('a refusal in a streamed batch, through the %s adapter', (adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());

  const clientOf = (link: (opts: { url: string; headers: () => Record<string, string> }) => TRPCLink<typeof router>, authorization?: string) =>
    createTRPCClient<typeof router>({ links: [link({ url: server.url, headers: (): Record<string, string> => (authorization === undefined ? {} : { authorization }) })] });
  const refusalOf = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TRPCClientError);
    return (error as TRPCClientError<typeof router>).data as { httpStatus: number; oauth2: { code: string; error: string | null } | null };
  };

  it('is answered 200 without WWW-Authenticate: the headers went out before the call ran', async () => {
    const response = await fetch(`${server.url}/open,secret?batch=1&input=${encodeURIComponent('{}')}`, { headers: STREAM });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('www-authenticate')).toBeNull();
    // The refusal is in the stream, with its stable code.
    expect(text).toContain('"code":"ERR_NOT_AUTHENTICATED"');
    // The same batch without streaming carries the status and the challenge (207: one call succeeded).
    const plain = await fetch(`${server.url}/open,secret?batch=1&input=${encodeURIComponent('{}')}`);
    expect({ status: plain.status, challenge: plain.headers.get('www-authenticate') }).toEqual({ status: 207, challenge: 'Bearer' });
  });

  it("a client reads the refusal from the error's data: data.oauth2.code and data.httpStatus", async () => {
    const anonymous = clientOf(httpBatchStreamLink);
    // Called in one tick: one batch, one stream.
    const [open, secret] = [anonymous.open.query(), anonymous.secret.query()];
    expect(await open).toBe('open');
    expect(await refusalOf(secret)).toMatchObject({ httpStatus: 401, oauth2: { code: 'ERR_NOT_AUTHENTICATED' } });
    const withoutAdmin = clientOf(httpBatchStreamLink, `Bearer ${scopeToken('own', ['me'])}`);
    expect(await refusalOf(withoutAdmin.admin.query())).toMatchObject({ httpStatus: 403, oauth2: { code: 'ERR_INSUFFICIENT_SCOPE', error: 'insufficient_scope' } });
    // A client that needs the challenge itself sends the call unstreamed (httpBatchLink, httpLink).
    expect(await refusalOf(clientOf(httpBatchLink).secret.query())).toMatchObject({ httpStatus: 401, oauth2: { code: 'ERR_NOT_AUTHENTICATED' } });
  });
});
