import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_LOGIN, GOOD_LOGIN, INVALID_CLIENT, INVALID_TOKEN, NOT_AUTHENTICATED, SECRETS, basic, expectRefused, loginRequest, meRequest, perFace, rawRequest, type HostileCase } from '@trpc-oauth2/test-kit';
import { FACES, isRest, serveHostileFace, type Face, type RunningFace } from './support/serve-faces.js';

const servers = {} as Record<Face, RunningFace>;
beforeAll(async () => {
  for (const face of FACES) servers[face] = await serveHostileFace(face);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const CASES: HostileCase<Face>[] = [
  { name: 'an Authorization header of 20 000 bytes', request: meRequest(`Bearer ${SECRETS.token}${'A'.repeat(20_000)}`), status: 431, message: null },
  ...['\x00', '\x01', '\x7f', '\r'].map(
    (control): HostileCase => ({ name: `a control character ${JSON.stringify(control)} in the token`, request: meRequest(`Bearer ${SECRETS.token}${control}x`), status: 400, message: null }),
  ),
  { name: 'invalid UTF-8 bytes in the token', request: meRequest(`Bearer ${SECRETS.token}\xff\xfe\xc0`), ...INVALID_TOKEN },
  ...[`Bearer:${SECRETS.token}`, `Bearer\t${SECRETS.token}`, `Bearer${SECRETS.token}`, `Token ${SECRETS.token}`].map(
    (value): HostileCase => ({ name: `a near miss of the scheme: ${JSON.stringify(value.slice(0, 7))}`, request: meRequest(value), ...NOT_AUTHENTICATED }),
  ),
  {
    name: 'Authorization twice: the valid token, then another',
    request: meRequest(`Bearer ${SECRETS.token}`, 'Bearer other'),
    ...INVALID_TOKEN,
  },
  {
    name: 'Authorization twice: the valid token both times',
    request: meRequest(`Bearer ${SECRETS.token}`, `Bearer ${SECRETS.token}`),
    ...INVALID_TOKEN,
  },
  { name: 'Authorization twice: another, then the valid token', request: meRequest('Bearer other', `Bearer ${SECRETS.token}`), ...INVALID_TOKEN },
  { name: 'Basic with a credential that is not base64', request: loginRequest(FORM_LOGIN, 'Basic ***'), ...INVALID_CLIENT },
  { name: 'Basic with nothing after the scheme', request: loginRequest(FORM_LOGIN, 'Basic'), ...INVALID_CLIENT },
  { name: 'Basic without a colon', request: loginRequest(FORM_LOGIN, basic(`app${SECRETS.clientSecret}`)), ...INVALID_CLIENT },
  { name: 'Basic that is not UTF-8', request: loginRequest(FORM_LOGIN, basic(Buffer.concat([Buffer.from(`app:${SECRETS.clientSecret}`), Buffer.from([0xff])]))), ...INVALID_CLIENT },
  {
    name: 'Basic sent twice',
    request: loginRequest(FORM_LOGIN, basic(`app:${SECRETS.clientSecret}`), basic(`app:${SECRETS.clientSecret}`)),
    ...INVALID_CLIENT,
  },
  {
    name: 'Basic and the form fields together',
    request: loginRequest(GOOD_LOGIN, basic(`app:${SECRETS.clientSecret}`)),
    status: 400,
    message: 'Use one client authentication method: the Basic header or the form fields, not both',
    challenge: null,
  },
];

describe('hostile Authorization headers on every face of @trpc-oauth2/openapi', () => {
  it.each(perFace(CASES, FACES))('$face: $name → $status', async (row) => {
    await expectRefused(servers[row.face], row);
  });
});

describe('a repeated Authorization header reads as its values joined by ", " on every face', () => {
  const rows = FACES.flatMap((face) =>
    [
      { values: ['Bearer a', 'Bearer b'], read: 'Bearer a, Bearer b' },
      { values: ['Bearer a', 'Basic b', 'x'], read: 'Bearer a, Basic b, x' },
      { values: ['Bearer a'], read: 'Bearer a' },
      // A header's name is case-insensitive (RFC 9110 §5.1): these are one header sent twice.
      { values: ['Bearer a', 'Bearer b'], names: ['authorization', 'AUTHORIZATION'], read: 'Bearer a, Bearer b' },
    ].map((row) => ({ face, names: [] as string[], ...row })),
  );

  it.each(rows)('$face: $names $values → $read', async ({ face, values, names, read }) => {
    const server = servers[face];
    const response = await rawRequest(server.origin, {
      path: `${server.prefix}/base`,
      headers: values.map((value, i) => [names[i] ?? 'Authorization', value] as const),
    });
    expect(response.status).toBe(200);
    const body = JSON.parse(response.body) as { length: number } | { result: { data: { length: number } } };
    // The base reader answers the length of what it read: the whole header value.
    expect(isRest(face) ? body : (body as { result: { data: unknown } }).result.data).toEqual({ length: read.length });
  });
});
