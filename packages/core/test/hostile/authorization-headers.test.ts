import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headersFromContext, readHeader } from '../../src/protocol.js';
import { ADAPTERS } from '../support/serve.js';
import { FORM_LOGIN, GOOD_LOGIN, INVALID_CLIENT, INVALID_TOKEN, NOT_AUTHENTICATED, SECRETS, basic, expectRefused, loginRequest, meRequest, type HostileCase } from '@trpc-oauth2/test-kit';
import { serveHostileApp } from './hostile-app.js';

let servers: Awaited<ReturnType<typeof serveHostileApp>>;
beforeAll(async () => {
  servers = await serveHostileApp();
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const CASES: HostileCase[] = [
  // Refused by the HTTP server itself: the status line is the message.
  { name: 'an Authorization header of 20 000 bytes', request: meRequest(`Bearer ${SECRETS.token}${'A'.repeat(20_000)}`), status: 431, message: null },
  {
    name: '3000 headers before Authorization',
    request: { path: '/me', headers: [...Array.from({ length: 3000 }, (_, i) => [`X-Filler-${i}`, 'x'] as const), ['Authorization', `Bearer ${SECRETS.token}`]] },
    status: 431,
    message: null,
  },
  ...['\x00', '\x01', '\x1b', '\x7f', '\r'].map(
    (control): HostileCase => ({
      name: `a control character ${JSON.stringify(control)} in the token`,
      request: meRequest(`Bearer ${SECRETS.token}${control}x`),
      status: 400,
      message: null,
    }),
  ),
  // Reach the reader: refused by it or by the token check.
  { name: 'invalid UTF-8 bytes in the token', request: meRequest(`Bearer ${SECRETS.token}\xff\xfe\xc0`), ...INVALID_TOKEN },
  { name: 'a UTF-8 token (read as Latin-1)', request: meRequest(`Bearer ${Buffer.from(`${SECRETS.token}é`).toString('latin1')}`), ...INVALID_TOKEN },
  { name: 'a token with a tab after it', request: meRequest(`Bearer ${SECRETS.token}\tx`), ...INVALID_TOKEN },
  ...[`Bearer:${SECRETS.token}`, `Bearer\t${SECRETS.token}`, `Bearer${SECRETS.token}`, `Bearer-${SECRETS.token}`, `Token ${SECRETS.token}`, `Beare ${SECRETS.token}`].map(
    (value): HostileCase => ({ name: `a near miss of the scheme: ${JSON.stringify(value.slice(0, 8))}`, request: meRequest(value), ...NOT_AUTHENTICATED }),
  ),
  // Sent twice: read as both values joined (as Fetch does), never as one clean token.
  { name: 'Authorization twice: the valid token, then another', request: meRequest(`Bearer ${SECRETS.token}`, 'Bearer other'), ...INVALID_TOKEN },
  { name: 'Authorization twice: another, then the valid token', request: meRequest('Bearer other', `Bearer ${SECRETS.token}`), ...INVALID_TOKEN },
  { name: 'Authorization twice: the valid token both times', request: meRequest(`Bearer ${SECRETS.token}`, `Bearer ${SECRETS.token}`), ...INVALID_TOKEN },
  { name: 'Authorization twice: Basic, then the valid token', request: meRequest(basic('app:x'), `Bearer ${SECRETS.token}`), ...NOT_AUTHENTICATED },
  { name: 'Authorization three times', request: meRequest(`Bearer ${SECRETS.token}`, `Bearer ${SECRETS.token}`, `Bearer ${SECRETS.token}`), ...INVALID_TOKEN },
  // Client authentication at the token endpoint.
  { name: 'Basic with a credential that is not base64', request: loginRequest(FORM_LOGIN, 'Basic ***'), ...INVALID_CLIENT },
  { name: 'Basic with nothing after the scheme', request: loginRequest(FORM_LOGIN, 'Basic'), ...INVALID_CLIENT },
  { name: 'Basic without a colon', request: loginRequest(FORM_LOGIN, basic(`app${SECRETS.clientSecret}`)), ...INVALID_CLIENT },
  { name: 'Basic with an empty client id', request: loginRequest(FORM_LOGIN, basic(`:${SECRETS.clientSecret}`)), ...INVALID_CLIENT },
  { name: 'Basic with bad percent-encoding', request: loginRequest(FORM_LOGIN, basic(`app:${SECRETS.clientSecret}%E0%A4%A`)), ...INVALID_CLIENT },
  {
    name: 'Basic that is not UTF-8',
    request: loginRequest(FORM_LOGIN, basic(Buffer.concat([Buffer.from(`app:${SECRETS.clientSecret}`), Buffer.from([0xff, 0xfe])]))),
    ...INVALID_CLIENT,
  },
  { name: 'Basic without base64 padding', request: loginRequest(FORM_LOGIN, basic(`app:${SECRETS.clientSecret}`).replace(/=+$/, '')), ...INVALID_CLIENT },
  { name: 'Basic sent twice', request: loginRequest(FORM_LOGIN, basic(`app:${SECRETS.clientSecret}`), basic(`app:${SECRETS.clientSecret}`)), ...INVALID_CLIENT },
  {
    name: 'Basic and the form fields together',
    request: loginRequest(GOOD_LOGIN, basic(`app:${SECRETS.clientSecret}`)),
    status: 400,
    message: 'Use one client authentication method: the Basic header or the form fields, not both',
    challenge: null,
  },
  {
    name: 'Basic with a wrong secret',
    request: loginRequest(FORM_LOGIN, basic('app:wrong')),
    status: 401,
    message: 'Client authentication failed',
    challenge: 'Basic',
  },
];

describe('hostile Authorization headers through the tRPC adapters', () => {
  it.each(ADAPTERS.flatMap((adapter) => CASES.map((c) => ({ adapter, ...c }))))('$adapter: $name → $status', async ({ adapter, ...hostile }) => {
    await expectRefused(servers[adapter], hostile);
  });

  it.each(ADAPTERS)('%s: a well-formed Basic client gets its token', async (adapter) => {
    const response = await fetch(`${servers[adapter].url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic(`app:${SECRETS.clientSecret}`) },
      body: JSON.stringify(FORM_LOGIN),
    });
    expect(response.status).toBe(200);
  });
});

describe('a repeated Authorization header on a Node request', () => {
  const nodeRequest = (rawHeaders: string[]) => {
    const headers: Record<string, string> = {};
    // What Node does: the first Authorization wins, the rest are dropped from `headers`.
    for (let i = 0; i < rawHeaders.length; i += 2) headers[rawHeaders[i]!.toLowerCase()] ??= rawHeaders[i + 1]!;
    return { headers, rawHeaders };
  };

  it.each([
    { raw: ['Authorization', 'Bearer a', 'authorization', 'Bearer b'], expected: 'Bearer a, Bearer b' },
    { raw: ['AUTHORIZATION', 'Bearer a', 'Host', 'x', 'Authorization', ''], expected: 'Bearer a, ' },
    { raw: ['Authorization', 'Bearer a', 'Host', 'x'], expected: 'Bearer a' },
    { raw: ['Host', 'x'], expected: undefined },
  ])('reads $raw as $expected, as a Fetch request would', ({ raw, expected }) => {
    const fetchHeaders = new Headers();
    for (let i = 0; i < raw.length; i += 2) fetchHeaders.append(raw[i]!, raw[i + 1]!);
    expect(readHeader(headersFromContext({ req: nodeRequest(raw) }), 'authorization')).toBe(expected);
    expect(readHeader(headersFromContext({ req: { headers: fetchHeaders } }), 'authorization')).toBe(expected);
  });
});
