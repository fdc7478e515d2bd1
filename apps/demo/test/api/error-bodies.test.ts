import { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { Ajv2020 } from 'ajv/dist/2020.js';
import superjson from 'superjson';
import { describe, expect, it, vi } from 'vitest';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { bearer, login, request } from '../support/http.js';
import { t, type DemoContext } from '../../src/api/trpc.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

// The 401 and 403 bodies /openapi.json documents are the ones the server sends: a real refusal
// validates against its documented schema, `data.oauth2` included, and the documented example
// has the shape of a real body. See docs/contract.md#verified-readers.
const demo = demoForThisFile();

describe('the error bodies /openapi.json documents', () => {
  it.each([
    ['401 without a token', 'GET', '/users/me', 401, undefined],
    ['403 for a token without `items`', 'GET', '/users/me/items', 403, 'bob'],
  ] as const)('%s is documented as sent', async (_name, method, path, status, user) => {
    const document = (await request(`${demo.url}/openapi.json`)).body;
    const headers = user === undefined ? {} : bearer((await login(demo.url, user, 'builder')).access_token);
    const sent = await request(`${demo.url}/api${path}`, { method, headers });
    expect(sent.status).toBe(status);
    expect(sent.body.data.oauth2).toMatchObject({ error: status === 401 ? null : 'insufficient_scope' });

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'doc', components: document.components });
    const ref = document.paths[path][method.toLowerCase()].responses[String(status)].content['application/json'].schema.$ref as string;
    const schema = ajv.getSchema(`doc${ref}`)!.schema as { properties: Record<string, any>; example: Record<string, unknown> };
    const validate = ajv.compile({ $ref: `doc${ref}` });
    expect(validate(sent.body), JSON.stringify(validate.errors)).toBe(true);
    // Every part of the real body is documented, oauth2's fields too…
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(Object.keys(sent.body)));
    expect(Object.keys(schema.properties.data.properties)).toEqual(expect.arrayContaining(Object.keys(sent.body.data)));
    expect(Object.keys(schema.properties.data.properties.oauth2.oneOf[0].properties).sort()).toEqual(Object.keys(sent.body.data.oauth2).sort());
    // …and the example has the real body's shape.
    expect(validate(schema.example), JSON.stringify(validate.errors)).toBe(true);
    expect(Object.keys(schema.example).sort()).toEqual(Object.keys(sent.body).sort());
    expect(Object.keys(schema.example.data as object).sort()).toEqual(Object.keys(sent.body.data).sort());
  });
});

describe("a server fault's answer", () => {
  // A procedure of the demo's tRPC instance that fails as a database does, through tRPC's adapter.
  const router = t.router({
    fails: t.procedure.query(() => {
      throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
    }),
    refuses: t.procedure.query(() => {
      throw new TRPCError({ code: 'BAD_REQUEST', message: 'A title has no control characters' });
    }),
  });
  const call = async (path: string) => {
    const response = await fetchRequestHandler({ endpoint: '/trpc', router, req: new Request(`http://127.0.0.1/trpc/${path}`), createContext: () => ({}) as DemoContext, onError: () => {} });
    return { status: response.status, error: superjson.deserialize<{ message: string; data: { code: string } }>(((await response.json()) as { error: never }).error) };
  };

  it('says nothing of the fault (its message may be a database’s), and a client mistake keeps its message', async () => {
    expect(await call('fails')).toMatchObject({ status: 500, error: { message: 'Internal server error', data: { code: 'INTERNAL_SERVER_ERROR' } } });
    expect(await call('refuses')).toMatchObject({ status: 400, error: { message: 'A title has no control characters', data: { code: 'BAD_REQUEST' } } });
  });
});
