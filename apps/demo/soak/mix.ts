/**
 * Access tokens the soak's protected calls use, from logins made before it starts.
 *
 * @example
 * ```ts
 * const tokens: SoakTokens = { alice: aliceLogin.access_token, bob: bobLogin.access_token };
 * ```
 */
export interface SoakTokens {
  /** Granted `me items`. */
  alice: string;
  /** Granted `me` only. */
  bob: string;
}

/**
 * One request of the soak's mix and the statuses it may get; any other is counted as unexpected.
 *
 * @example
 * ```ts
 * const me: SoakRequest = { name: 'REST users/me', method: 'GET', path: '/api/users/me', expected: [200] };
 * ```
 */
export interface SoakRequest {
  /** Names the request in the report. */
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expected: readonly number[];
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_BODY = { 'content-type': 'application/json' };

/**
 * The requests every soak connection cycles through: protected calls over REST and tRPC
 * (granted, short of a scope), bad tokens (garbage, `alg: none`, a payload under another
 * token's signature, none at all) and hostile bodies sent to the token endpoint (wrong type,
 * too large, malformed JSON and multipart, unknown grant, unknown refresh token), field names
 * superjson refuses (streamed or not), JSON, form and multipart bodies over the limit on /trpc
 * and REST, batches over the limit (50 and 1,000 calls) and `Host` headers no URL can be built
 * from (`x@evil` on every face), and the authorization server's hostile input (NUL bytes in
 * its fields, `/oidc?x`, Hosts no URL is built from, a login at an unknown interaction). None of them
 * reaches a password check: logins, which cost a deliberately slow hash each, run apart at a
 * bounded rate (see `runLogins`).
 *
 * @example
 * ```ts
 * const mix = soakRequests({ alice, bob });
 * mix.length; // 53
 * ```
 */
export function soakRequests({ alice, bob }: SoakTokens): SoakRequest[] {
  const [header, alicePayload, signature] = alice.split('.');
  const bobPayload = bob.split('.')[1];
  const unsigned = `${base64url({ alg: 'none', typ: 'at+jwt' })}.${alicePayload}.`;
  const foreignSignature = `${header}.${bobPayload}.${signature}`;
  return [
    { name: 'REST users/me (alice)', method: 'GET', path: '/api/users/me', headers: bearer(alice), expected: [200] },
    { name: 'REST users/me/items (alice)', method: 'GET', path: '/api/users/me/items', headers: bearer(alice), expected: [200] },
    { name: 'tRPC users.me (alice)', method: 'GET', path: '/trpc/users.me', headers: bearer(alice), expected: [200] },
    { name: 'tRPC users.items (alice)', method: 'GET', path: '/trpc/users.items', headers: bearer(alice), expected: [200] },
    { name: 'REST users/me (bob)', method: 'GET', path: '/api/users/me', headers: bearer(bob), expected: [200] },
    { name: 'REST users/me/items, scope missing (bob)', method: 'GET', path: '/api/users/me/items', headers: bearer(bob), expected: [403] },
    { name: 'tRPC users.items, scope missing (bob)', method: 'GET', path: '/trpc/users.items', headers: bearer(bob), expected: [403] },
    { name: 'REST users/me, no token', method: 'GET', path: '/api/users/me', expected: [401] },
    { name: 'REST users/me, garbage token', method: 'GET', path: '/api/users/me', headers: bearer('not-a-jwt'), expected: [401] },
    { name: 'tRPC users.me, alg none', method: 'GET', path: '/trpc/users.me', headers: bearer(unsigned), expected: [401] },
    { name: 'REST users/me, payload under another signature', method: 'GET', path: '/api/users/me', headers: bearer(foreignSignature), expected: [401] },
    { name: 'token, text/plain body', method: 'POST', path: '/api/token', headers: { 'content-type': 'text/plain' }, body: 'username=alice', expected: [415] },
    { name: 'token, body over 16 KiB', method: 'POST', path: '/api/token', headers: FORM, body: `username=${'a'.repeat(17_000)}&password=x`, expected: [413] },
    { name: 'token, malformed JSON', method: 'POST', path: '/api/token', headers: JSON_BODY, body: '{"username":', expected: [400] },
    {
      name: 'token, malformed multipart',
      method: 'POST',
      path: '/api/token',
      headers: { 'content-type': 'multipart/form-data; boundary=soak' },
      body: '--soak\r\nContent-Disposition: form-data; name="username"\r\n\r\nalice',
      expected: [400],
    },
    { name: 'token, unsupported grant type', method: 'POST', path: '/api/token', headers: FORM, body: 'grant_type=client_credentials&username=a&password=b', expected: [400] },
    { name: 'token, unknown refresh token', method: 'POST', path: '/api/token', headers: FORM, body: 'grant_type=refresh_token&refresh_token=not-issued', expected: [400] },
    { name: 'tRPC auth.token, password missing', method: 'POST', path: '/trpc/auth.token', headers: JSON_BODY, body: '{"json":{"username":"alice"}}', expected: [400] },
    { name: 'tRPC auth.token, repeated fields and a huge scope', method: 'POST', path: '/trpc/auth.token', headers: FORM, body: `${'username=a&'.repeat(200)}scope=${'x'.repeat(2_000)}`, expected: [400] },
    // Bodies, batches and headers once answered with a 5xx or read without bound (see RELIABILITY.md).
    ...['__proto__', 'constructor', 'prototype'].flatMap((field): SoakRequest[] => [
      { name: `tRPC auth.token, a ${field} form field`, method: 'POST', path: '/trpc/auth.token', headers: FORM, body: `${field}=1&username=a&password=b`, expected: [400] },
      {
        name: `tRPC auth.token, a ${field} form field, streamed`,
        method: 'POST',
        path: '/trpc/auth.token?batch=1',
        headers: { ...FORM, 'trpc-accept': 'application/jsonl' },
        body: `${field}=1&username=a&password=b`,
        expected: [400],
      },
    ]),
    { name: 'tRPC auth.token, JSON body over 100 kB', method: 'POST', path: '/trpc/auth.token', headers: JSON_BODY, body: `{"json":{"username":"${'a'.repeat(120_000)}"}}`, expected: [413] },
    { name: 'tRPC auth.token, form body over 100 kB', method: 'POST', path: '/trpc/auth.token', headers: FORM, body: `username=${'a'.repeat(120_000)}&password=x`, expected: [413] },
    {
      name: 'tRPC auth.token, multipart body over 100 kB',
      method: 'POST',
      path: '/trpc/auth.token',
      headers: { 'content-type': 'multipart/form-data; boundary=soak' },
      body: `--soak\r\nContent-Disposition: form-data; name="username"\r\n\r\n${'a'.repeat(120_000)}\r\n--soak--\r\n`,
      expected: [413],
    },
    { name: 'REST conformance/form, JSON body over 100 kB', method: 'POST', path: '/api/conformance/form', headers: JSON_BODY, body: `{"username":"${'a'.repeat(120_000)}"}`, expected: [413] },
    { name: 'REST token, JSON body over 16 KiB', method: 'POST', path: '/api/token', headers: JSON_BODY, body: `{"username":"${'a'.repeat(17_000)}","password":"x"}`, expected: [413] },
    { name: 'tRPC batch of 50 users.me', method: 'GET', path: `/trpc/${Array(50).fill('users.me').join(',')}?batch=1`, headers: bearer(alice), expected: [400] },
    { name: 'tRPC batch of 1,000 users.me', method: 'GET', path: `/trpc/${Array(1_000).fill('users.me').join(',')}?batch=1`, headers: bearer(alice), expected: [400] },
    // The authorization server's input that once got a 5xx (NUL bytes in its fields, `/oidc?x`, a
    // Host no URL is built from), and its pages': a 4xx, or RFC 7009's 200 for an unknown token.
    ...(
      [
        ['a NUL byte in client_id', '/oidc/token', { grant_type: 'authorization_code', client_id: 'swagger-ui\0', code: 'x', redirect_uri: 'x', code_verifier: 'x' }],
        ['a NUL byte in code', '/oidc/token', { grant_type: 'authorization_code', client_id: 'swagger-ui', code: 'a\0b', redirect_uri: 'x', code_verifier: 'x' }],
        ['a NUL byte in refresh_token', '/oidc/token', { grant_type: 'refresh_token', client_id: 'swagger-ui', refresh_token: 'a\0b' }],
        ['an unknown code', '/oidc/token', { grant_type: 'authorization_code', client_id: 'swagger-ui', code: 'not-issued', redirect_uri: 'x', code_verifier: 'x' }],
        ['a NUL byte in the token to revoke', '/oidc/token/revocation', { client_id: 'swagger-ui', token: 'a\0b' }],
        ['a login at an unknown interaction', '/interaction/x%00/login', { username: 'alice', password: 'wonderland' }],
      ] as const
    ).map(([what, path, fields]): SoakRequest => ({
      name: `${path}, ${what}`,
      method: 'POST',
      path,
      headers: FORM,
      body: new URLSearchParams(fields).toString(),
      expected: path === '/oidc/token/revocation' ? [200] : [400, 401, 404],
    })),
    ...(
      [
        ['/oidc?x', '127.0.0.1'],
        [`/oidc/auth?client_id=a%00&response_type=code`, '127.0.0.1'],
        ['/oidc/session/end?state=%00', '127.0.0.1'],
        ['/interaction/%00', '127.0.0.1'],
        ['/oidc/.well-known/openid-configuration', '['],
        ['/oidc/.well-known/openid-configuration', '127.0.0.1:99999'],
      ] as const
    ).map(([path, host]): SoakRequest => ({
      name: `GET ${path}, Host: ${host}`,
      method: 'GET',
      path,
      headers: { host },
      // Discovery is answered from the configured issuer, whatever the Host.
      expected: path.startsWith('/oidc/.well-known') ? [200, 400] : [400, 404],
    })),
    // A Host no request URL can be built from (userinfo, empty, a space, an open bracket).
    ...(
      [
        ['x@evil', 'GET', '/trpc/users.me'],
        ['x@evil', 'POST', '/trpc/auth.token'],
        ['x@evil', 'GET', '/trpc/users.me,users.items?batch=1'],
        ['x@evil', 'GET', '/api/users/me'],
        ['x@evil', 'POST', '/api/token'],
        ['user:pass@127.0.0.1', 'GET', '/trpc/users.me'],
        ['@', 'GET', '/api/users/me'],
        ['a b', 'POST', '/trpc/auth.token'],
        ['[::1', 'GET', '/trpc/users.me'],
      ] as const
    ).map(([host, method, path]): SoakRequest => ({
      name: `${method} ${path}, Host: ${host}`,
      method,
      path,
      headers: { host, ...bearer(alice), ...(method === 'POST' ? JSON_BODY : {}) },
      ...(method === 'POST' ? { body: '{"json":{"username":"alice","password":"wonderland"}}' } : {}),
      expected: [400],
    })),
  ];
}
