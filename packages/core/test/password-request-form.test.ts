import { initTRPC } from '@trpc/server';
import type { ZodError } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordRequestForm, passwordRequestFormStrict } from '../src/index.js';
import { FORM_CASES, isRefusal, toFormData, toObject, toSearchParams } from '@trpc-oauth2/test-kit';
import { ADAPTERS, mutate, serveOnEveryAdapter, type Adapter, type RunningServer } from './support/serve.js';

const VARIANTS = [
  { variant: 'permissive', schema: passwordRequestForm },
  { variant: 'strict', schema: passwordRequestFormStrict },
] as const;
const ENCODINGS = [
  { encoding: 'URLSearchParams', encode: toSearchParams },
  { encoding: 'FormData', encode: toFormData },
  { encoding: 'object', encode: toObject },
] as const;

const fieldsAtFault = (error: ZodError) => [...new Set(error.issues.map((issue) => issue.path.join('.')))];

const cases = VARIANTS.flatMap(({ variant, schema }) =>
  ENCODINGS.flatMap(({ encoding, encode }) =>
    FORM_CASES.map((c) => ({ variant, schema, encoding, encode, ...c, expected: c[variant] })),
  ),
);

describe('password request form parsers', () => {
  it.each(cases)('$variant, $encoding: $name', ({ schema, encode, fields, expected }) => {
    const result = schema.safeParse(encode(fields));
    if (isRefusal(expected)) {
      expect(result.success).toBe(false);
      expect(fieldsAtFault(result.error!)).toEqual(expected.errors);
      for (const issue of result.error!.issues) expect(issue.message).toMatch(new RegExp(`^${issue.path[0]!.toString()}: `));
    } else {
      expect(result.error).toBeUndefined();
      expect(result.data).toEqual(expected);
    }
  });

  it.each(['a string', 42, null, ['username', 'alice'], true])('refuses a body that is not a form: %j', (body) => {
    expect(passwordRequestForm.safeParse(body).success).toBe(false);
  });

  it.each([
    { name: 'a file as a field', body: (() => { const d = toFormData([['password', 'x']]); d.append('username', new Blob(['alice'])); return d; })(), errors: ['username'] },
    { name: 'a number as a field', body: { username: 7, password: 'x' }, errors: ['username'] },
    { name: 'a list as a field', body: { username: ['a', 'b'], password: 'x' }, errors: ['username'] },
    { name: 'null optional fields', body: { username: 'a', password: 'x', client_id: null, scope: null, grant_type: null }, errors: [] },
  ])('handles $name', ({ body, errors }) => {
    const result = passwordRequestForm.safeParse(body);
    if (errors.length === 0) expect(result.success).toBe(true);
    else expect(fieldsAtFault(result.error!)).toEqual(errors);
  });

  it('never echoes the password or the client secret in an error', () => {
    const secret = 'hunter2-very-secret';
    const result = passwordRequestFormStrict.safeParse({ grant_type: secret, password: secret, client_secret: 42, username: ['x'] });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error)).not.toContain(secret);
    expect(result.error!.message).not.toContain(secret);
  });
});

describe('password request form over tRPC HTTP', () => {
  const t = initTRPC.create();
  const router = t.router({
    token: t.procedure.input(passwordRequestForm).mutation(({ input }) => input),
    tokenStrict: t.procedure.input(passwordRequestFormStrict).mutation(({ input }) => input),
  });
  let servers: Record<Adapter, RunningServer>;
  beforeAll(async () => {
    servers = await serveOnEveryAdapter(router);
  });
  afterAll(async () => {
    await Promise.all(Object.values(servers).map((server) => server.close()));
  });

  const bodies = [
    { body: 'JSON', init: (fields: (typeof FORM_CASES)[number]['fields']) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(toObject(fields)) }) },
    { body: 'multipart', init: (fields: (typeof FORM_CASES)[number]['fields']) => ({ body: toFormData(fields) }) },
  ];
  const httpCases = ADAPTERS.flatMap((adapter) =>
    bodies.flatMap(({ body, init }) =>
      VARIANTS.flatMap(({ variant }) => FORM_CASES.map((c) => ({ adapter, body, init, variant, ...c, expected: c[variant] }))),
    ),
  );

  // multipart/form-data serialises every line break in a value as CRLF (HTML's form rules).
  const asSent = (body: string, form: Record<string, unknown>) =>
    body === 'multipart' && typeof form.scope === 'string' ? { ...form, scope: form.scope.replace(/\r?\n/g, '\r\n') } : form;

  it.each(httpCases)('$adapter, $body, $variant: $name', async ({ adapter, body, init, variant, fields, expected }) => {
    const result = await mutate(servers[adapter], variant === 'strict' ? 'tokenStrict' : 'token', init(fields));
    if (isRefusal(expected)) {
      expect(result.status).toBe(400);
      expect(result.body.error?.data.code).toBe('BAD_REQUEST');
      for (const field of expected.errors) expect(result.body.error?.message).toContain(`${field}: `);
      expect(result.body.error?.message).not.toContain('s3cret');
    } else {
      expect(result.status).toBe(200);
      expect(result.body.result?.data).toEqual(asSent(body, expected));
    }
  });

  it.each(ADAPTERS)('%s: a body of another type is a 4xx, never a 5xx', async (adapter) => {
    for (const init of [
      { headers: { 'content-type': 'text/plain' }, body: 'username=a&password=b' },
      { headers: { 'content-type': 'application/json' }, body: '{"username": "a", ' },
      { headers: { 'content-type': 'application/json' }, body: '"just a string"' },
      { headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nbroken' },
    ]) {
      const response = await fetch(`${servers[adapter].url}/token`, { method: 'POST', ...init });
      expect(response.status, init.body).toBeGreaterThanOrEqual(400);
      expect(response.status, init.body).toBeLessThan(500);
    }
  });
});
