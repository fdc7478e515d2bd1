import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { bearer, login, request } from '../support/http.js';

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
