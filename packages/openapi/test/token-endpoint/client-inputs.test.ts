import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { revoked, seenCredentials, tokenRouter } from './token-router.js';

// docs/contract.md#token-responses and docs/contract.md#client-authentication: what a client
// sends besides a well-formed form (fields in the URL, a form in another charset, a JSON member
// said twice, an empty or broken Basic credential, a handler's tRPC 401) is answered alike on
// every face, and never read as another request than the client made.

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(tokenRouter, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(faces).map((running) => running.close()));
});
beforeEach(() => {
  seenCredentials.length = 0;
});

const URLENCODED = 'application/x-www-form-urlencoded';
const ALICE = 'grant_type=password&username=alice&password=wonderland';
const basic = (userPass: string) => `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;

/** Posts `body` to the endpoint on `face` (with `query` after its path), read as RFC 6749 §5.2 or §5.1 whatever the face. */
async function post(face: Face, procedure: 'token' | 'revoke', body: BodyInit, headers: Record<string, string> = { 'content-type': URLENCODED }, query = '') {
  const running = faces[face];
  const url = `${running.origin}${isRest(face) ? '/api' : '/trpc'}/${procedure}${query}`;
  const response = await fetch(url, { method: 'POST', body, headers });
  const json: any = JSON.parse(await response.text());
  const oauth2 = isRest(face) ? undefined : json.error?.data?.oauth2;
  const refused = isRest(face) ? response.status >= 400 : json.error !== undefined;
  const read = !refused ? (isRest(face) ? json : json.result.data) : isRest(face) ? json : { error: oauth2?.error, error_description: oauth2?.error_description };
  return { status: response.status, headers: response.headers, body: read, code: oauth2?.code as string | undefined };
}

/**
 * The charset a `Content-Type` parameter value names, as the handlers read it: the quotes off,
 * lower case. A backslash escape is kept as sent (the handlers do not unescape it).
 */
const charsetAsRead = (value: string) => (value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value).toLowerCase();

const NOT_IN_QUERY = (field: string) => `${field}: not allowed in the URL query, send it in the request body`;

describe.each(FACES)('a field of the endpoint in the URL query on %s (RFC 6749 §2.3.1)', (face) => {
  it.each<[string, 'token' | 'revoke', string, string, string]>([
    ['a client secret beside Basic-free form fields', 'token', '?client_secret=s3cret', `${ALICE}&client_id=app`, 'client_secret'],
    ['a client id', 'token', '?client_id=app', ALICE, 'client_id'],
    ['a client secret, its name percent-encoded', 'token', '?client%5Fsecret=s3cret', `${ALICE}&client_id=app`, 'client_secret'],
    ['a client secret without a value', 'token', '?client_secret', `${ALICE}&client_id=app`, 'client_secret'],
    ['a password', 'token', '?tenant=a&password=wonderland', 'grant_type=password&username=alice', 'password'],
    ['a grant_type the body names too', 'token', '?grant_type=client_credentials', ALICE, 'grant_type'],
    ['a client secret at the revocation endpoint', 'revoke', '?client_secret=s3cret', `token=rt-query-${face}&client_id=app`, 'client_secret'],
    ['the token at the revocation endpoint', 'revoke', '?token=rt-query-url', `token=rt-query-body-${face}`, 'token'],
  ])('refuses %s with 400 invalid_request, never asking the application', async (_name, procedure, query, body, field) => {
    const answer = await post(face, procedure, body, { 'content-type': URLENCODED }, query);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: NOT_IN_QUERY(field) } });
    if (!isRest(face)) expect(answer.code).toBe('ERR_INVALID_REQUEST');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('pragma')).toBe('no-cache');
    expect(seenCredentials).toEqual([]);
    expect(revoked.filter((token) => token.startsWith('rt-query'))).toEqual([]);
  });

  it('refuses it whatever the body: JSON, multipart, none', async () => {
    const form = new FormData();
    for (const [name, value] of new URLSearchParams(`${ALICE}&client_id=app`)) form.append(name, value);
    const bodies: [BodyInit, Record<string, string>][] = [
      [JSON.stringify({ grant_type: 'password', username: 'alice', password: 'wonderland', client_id: 'app' }), { 'content-type': 'application/json' }],
      [form, {}],
    ];
    for (const [body, headers] of bodies) {
      const answer = await post(face, 'token', body, headers, '?client_secret=s3cret');
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: NOT_IN_QUERY('client_secret') } });
    }
    expect(seenCredentials).toEqual([]);
  });

  it('still serves a query parameter the endpoint does not read (RFC 6749 §3.2 allows a query)', async () => {
    const answer = await post(face, 'token', ALICE, { 'content-type': URLENCODED }, '?tenant=a&resource=https%3A%2F%2Fapi.example');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ access_token: 'at-alice-public' });
  });
});

/** The fields the test router's token endpoint reads. */
const READ = ['grant_type', 'username', 'password', 'scope', 'client_id', 'client_secret', 'refresh_token', 'code', 'redirect_uri', 'code_verifier'] as const;
const value = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '+', '&', '=', '%', 'é'), maxLength: 6 });

it.each(FACES)('on %s: any field the endpoint reads, anywhere in the query among others, is refused naming it', async (face) => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...READ), value, fc.array(fc.tuple(fc.constantFrom('tenant', 'x', 'resource'), value), { maxLength: 3 }), fc.nat(), async (field, sent, others, at) => {
      seenCredentials.length = 0;
      const pairs: [string, string][] = [...others];
      pairs.splice(at % (pairs.length + 1), 0, [field, sent]);
      const answer = await post(face, 'token', `${ALICE}&client_id=app&client_secret=s3cret`, { 'content-type': URLENCODED }, `?${new URLSearchParams(pairs)}`);
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: NOT_IN_QUERY(field) } });
      expect(seenCredentials).toEqual([]);
    }),
    { numRuns: 25 },
  );
});

describe.each(FACES)('the charset of a urlencoded form on %s (RFC 6749 Appendix B: UTF-8)', (face) => {
  it.each([
    ['iso-8859-1', 'iso-8859-1'],
    ['ISO-8859-1', 'iso-8859-1'],
    ['"windows-1252"', 'windows-1252'],
    ['utf-16', 'utf-16'],
    // What RFC 6749 §5.2's description may not hold is escaped, not dropped: the name reads back whole.
    ['"a\\"b"', 'a%5C%22b'],
    ['"x y%"', 'x%20y%25'],
  ])('refuses charset=%s with 415 invalid_request naming it as %s, never misread', async (charset, named) => {
    // `é` as ISO-8859-1 writes it: read as UTF-8 it would be another username, or none.
    const answer = await post(face, 'token', 'grant_type=password&username=al%E9ice&password=wonderland', { 'content-type': `${URLENCODED}; charset=${charset}` });
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual({ error: 'invalid_request', error_description: `Unsupported charset ${named}: send the form in UTF-8` });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(seenCredentials).toEqual([]);
  });

  it('names any charset the client sent so that it reads back whole, in the characters of RFC 6749 §5.2 (property)', async () => {
    const name = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '_', '"', '\\', '%', ' ', "'", '\u00e9'), minLength: 1, maxLength: 10 });
    await fc.assert(
      fc.asyncProperty(name.filter((charset) => !['utf-8', 'utf8'].includes(charset.toLowerCase()) && charset.trim() === charset && charset.trim() !== ''), async (charset) => {
        // Quoted, as RFC 9110 §5.6.6 writes a parameter value holding any of these characters.
        const quoted = `"${charset.replace(/["\\]/g, '\\$&')}"`;
        const answer = await post(face, 'token', ALICE, { 'content-type': `${URLENCODED}; charset=${quoted}` });
        expect(answer.status).toBe(415);
        const description: string = answer.body.error_description;
        expect(description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);
        const named = /^Unsupported charset (\S+): send the form in UTF-8$/.exec(description)?.[1];
        expect(named).toBeDefined();
        // Each escape is one character's code (a header's text is Latin-1: `é` is `%E9`).
        expect(named!.replace(/%([0-9A-F]{2})/g, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))).toBe(charsetAsRead(quoted));
      }),
      { numRuns: 30 },
    );
  });

  it.each(['UTF-8', 'utf-8', '"utf-8"', 'utf8'])('reads charset=%s as the form it is', async (charset) => {
    const answer = await post(face, 'token', ALICE, { 'content-type': `${URLENCODED}; charset=${charset}` });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ access_token: 'at-alice-public' });
  });
});

describe.each(FACES)('a JSON body on %s', (face) => {
  it.each<[string, string, string]>([
    ['a username said twice', '{"grant_type":"password","username":"mallory","password":"wonderland","username":"alice"}', 'username'],
    ['grant_type said twice, once escaped', '{"grant_type":"refresh_token","refresh_token":"rt-1","username":"alice","password":"wonderland","grant\\u005ftype":"password"}', 'grant_type'],
    ['client_id said twice, once empty', '{"grant_type":"password","username":"alice","password":"wonderland","client_id":"app","client_id":""}', 'client_id'],
  ])('refuses %s as a repeated form field is refused', async (_name, body, field) => {
    const answer = await post(face, 'token', body, { 'content-type': 'application/json' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: `${field}: sent more than once` } });
    expect(seenCredentials).toEqual([]);
  });

  it('refuses a token said twice at the revocation endpoint, revoking neither', async () => {
    const answer = await post(face, 'revoke', `{"token":"rt-json-a-${face}","token":"rt-json-b-${face}"}`, { 'content-type': 'application/json' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'token: sent more than once' } });
    expect(revoked.filter((token) => token.startsWith('rt-json'))).toEqual([]);
  });

  it('reads a member no grant reads however often it is said, and the same name in separate objects', async () => {
    const answer = await post(face, 'token', '{"grant_type":"password","username":"alice","password":"wonderland","x":1,"x":{"username":"a"},"extra":[{"scope":"a"},{"scope":"b"}]}', { 'content-type': 'application/json' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ access_token: 'at-alice-public' });
  });
});

describe.each(FACES)('client credentials on %s', (face) => {
  it('gives the application one client for an empty secret, in Basic as in the form', async () => {
    // `spa` is registered with an empty secret.
    const overBasic = await post(face, 'token', ALICE, { 'content-type': URLENCODED, authorization: basic('spa:') });
    const overForm = await post(face, 'token', `${ALICE}&client_id=spa&client_secret=`, { 'content-type': URLENCODED });
    const withoutSecret = await post(face, 'token', `${ALICE}&client_id=spa`, { 'content-type': URLENCODED });
    expect([overBasic.status, overForm.status, withoutSecret.status]).toEqual([200, 200, 200]);
    expect(seenCredentials.map(({ clientId, clientSecret }) => ({ clientId, clientSecret }))).toEqual([
      { clientId: 'spa', clientSecret: null },
      { clientId: 'spa', clientSecret: null },
      { clientId: 'spa', clientSecret: null },
    ]);
  });

  it('answers a handler\'s TRPCError UNAUTHORIZED as 401 invalid_client, with the Basic challenge for a Basic client', async () => {
    const overBasic = await post(face, 'token', 'grant_type=password&username=unauthorized&password=wonderland', { 'content-type': URLENCODED, authorization: basic('app:s3cret') });
    const overForm = await post(face, 'token', 'grant_type=password&username=unauthorized&password=wonderland&client_id=app&client_secret=s3cret');
    const revoking = await post(face, 'revoke', 'token=unauthorized', { 'content-type': URLENCODED, authorization: basic('app:s3cret') });
    for (const answer of [overBasic, overForm, revoking]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
      if (!isRest(face)) expect(answer.code).toBe('ERR_INVALID_CLIENT');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    expect(overBasic.body.error_description).toBe('This client may not sign users in');
    expect([overBasic, overForm, revoking].map((answer) => answer.headers.get('www-authenticate'))).toEqual(['Basic', null, 'Basic']);
  });
});

// RFC 6749 §2.3.1: the id and secret are form-encoded inside Basic. A broken escape fails client
// authentication (401 invalid_client, RFC 6749 §5.2, with the Basic challenge), before the
// application is asked: never a 5xx, never read as another client.
it.each(FACES)('on %s: a Basic credential with a broken escape in its id or secret is 401 invalid_client', async (face) => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('app', 'spa', 'a%20b'),
      fc.constantFrom('s3cret', '', 'p%3Ass'),
      fc.constantFrom('%', '%4', '%G0', '%%41', '%FF', '%C3', '%E2%82', '%ED%A0%80', '%C0%AF'),
      fc.boolean(),
      fc.nat(),
      async (id, secret, escape, inId, at) => {
        seenCredentials.length = 0;
        const broken = (part: string) => `${part.slice(0, at % (part.length + 1))}${escape}z${part.slice(at % (part.length + 1))}`;
        const answer = await post(face, 'token', ALICE, { 'content-type': URLENCODED, authorization: basic(inId ? `${broken(id)}:${secret}` : `${id}:${broken(secret)}`) });
        expect({ status: answer.status, error: answer.body.error, challenge: answer.headers.get('www-authenticate') }).toEqual({ status: 401, error: 'invalid_client', challenge: 'Basic' });
        expect(seenCredentials).toEqual([]);
      },
    ),
    { numRuns: 30 },
  );
});
