/**
 * docs/contract.md#token-responses: RFC 6749 §3.2 says a request parameter MUST NOT be sent more
 * than once, and §5.2 answers one that is with `invalid_request`. The token and revocation
 * endpoints refuse a field they read held twice by a `FormData` or `URLSearchParams` (through
 * `createCaller`, and a multipart form through tRPC's own adapters), whichever value would have
 * been read; the password request form used on its own still reads the last.
 */
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOAuth2Error, passwordRequestForm } from '../src/index.js';
import { authorizationCodeGrantForm, oauth2ErrorData, revocationEndpoint, tokenEndpoint } from '../src/token-endpoint/index.js';
import { ADAPTERS, serveRouter, type Adapter, type RunningServer } from './support/serve.js';

const revoked: string[] = [];
const t = initTRPC
  .context<{ req?: unknown }>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });
const router = t.router({
  token: tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), defaultGrantType: 'password' })
    .grant('password', ({ form }) => ({ access_token: `for ${form.username}`, token_type: 'Bearer' }))
    .grant('authorization_code', authorizationCodeGrantForm, ({ form }) => ({ access_token: `for ${form.code}`, token_type: 'Bearer' }))
    .build(),
  revoke: revocationEndpoint(t.procedure, {
    authenticateClient: () => ({ id: null }),
    tokenTypes: ['refresh_token'],
    revoke: ({ form }) => void revoked.push(form.token),
  }),
});
const caller = router.createCaller({});

/** `pairs` as a `URLSearchParams` or a `FormData`, in order. */
const multi = (pairs: readonly (readonly [string, string])[], kind: 'params' | 'form') => {
  const body = kind === 'params' ? new URLSearchParams() : new FormData();
  for (const [name, value] of pairs) body.append(name, value);
  return body;
};

/** What the endpoint answered a refusal with: its stable code and §5.2 description. */
const refusalOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => {
      const cause = getOAuth2Error(error);
      return { code: cause?.code, error: cause?.error, description: cause?.message };
    },
  );

const ALICE = [['grant_type', 'password'], ['username', 'alice'], ['password', 'x']] as const;

describe.each(['params', 'form'] as const)('createCaller with a %s body', (kind) => {
  it.each<[string, readonly (readonly [string, string])[], string]>([
    ['grant_type naming two grants', [['grant_type', 'authorization_code'], ['code', 'c'], ...ALICE], 'grant_type'],
    ['username twice, the same', [...ALICE, ['username', 'alice']], 'username'],
    ['client_id, once empty', [...ALICE, ['client_id', 'app'], ['client_id', '']], 'client_id'],
    ['client_secret, both empty', [...ALICE, ['client_secret', ''], ['client_secret', '']], 'client_secret'],
    ["another grant's field", [...ALICE, ['code_verifier', 'a'], ['code_verifier', 'b']], 'code_verifier'],
  ])('refuses %s as invalid_request naming the field', async (_name, pairs, field) => {
    expect(await refusalOf(caller.token(multi(pairs, kind)))).toEqual({ code: 'ERR_INVALID_REQUEST', error: 'invalid_request', description: `${field}: sent more than once` });
  });

  it('refuses a token sent twice to the revocation endpoint, and revokes neither', async () => {
    const sent = multi([['token', `a-${kind}`], ['token', `b-${kind}`]], kind);
    expect(await refusalOf(caller.revoke(sent))).toEqual({ code: 'ERR_INVALID_REQUEST', error: 'invalid_request', description: 'token: sent more than once' });
    expect(revoked.filter((token) => token.endsWith(kind))).toEqual([]);
  });

  it('still reads a request whose repeated fields are none it reads', async () => {
    expect(await caller.token(multi([...ALICE, ['resource', 'a'], ['resource', 'b']], kind))).toEqual({ access_token: 'for alice', token_type: 'Bearer' });
  });

  it('leaves the password request form, used on its own, reading the last value', () => {
    expect(passwordRequestForm.parse(multi([...ALICE, ['username', 'bob']], kind)).username).toBe('bob');
  });
});

// Any field the endpoint reads, two or three values (empty ones too), anywhere among a request
// that would be granted, in either kind of body.
it('refuses a repeat of any field the token endpoint reads, wherever and however it is sent', async () => {
  const fields = ['grant_type', 'username', 'password', 'scope', 'client_id', 'client_secret', 'code', 'redirect_uri', 'code_verifier'];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...fields),
      fc.array(fc.string({ maxLength: 4 }), { minLength: 2, maxLength: 3 }),
      fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
      fc.constantFrom('params' as const, 'form' as const),
      async (field, values, positions, kind) => {
        const pairs: [string, string][] = ALICE.filter(([name]) => name !== field).map(([name, value]) => [name, value]);
        for (const [i, value] of values.entries()) pairs.splice(positions[i]! % (pairs.length + 1), 0, [field, value]);
        expect(await refusalOf(caller.token(multi(pairs, kind)))).toEqual({ code: 'ERR_INVALID_REQUEST', error: 'invalid_request', description: `${field}: sent more than once` });
      },
    ),
    { numRuns: 200 },
  );
});

describe.each(ADAPTERS)("a multipart form through tRPC's own %s adapter", (adapter: Adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());

  it('is refused when it repeats a field the endpoint reads, with no-store', async () => {
    const response = await fetch(`${server.url}/token`, { method: 'POST', body: multi([...ALICE, ['username', 'mallory']], 'form') });
    const json: any = await response.json();
    expect(response.status).toBe(400);
    expect(json.error.data.oauth2).toEqual({ code: 'ERR_INVALID_REQUEST', error: 'invalid_request', error_description: 'username: sent more than once', challenge: null, dpopNonce: null });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('is read when it repeats none', async () => {
    const response = await fetch(`${server.url}/token`, { method: 'POST', body: multi(ALICE, 'form') });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).result.data).toEqual({ access_token: 'for alice', token_type: 'Bearer' });
  });
});
