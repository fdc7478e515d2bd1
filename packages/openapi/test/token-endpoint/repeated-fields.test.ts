import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { revoked, tokenRouter } from './token-router.js';

// docs/contract.md#token-responses: RFC 6749 §3.2 says a parameter MUST NOT be sent more than
// once, and §5.2 answers one that is with invalid_request. A field the endpoint reads, sent
// twice, is refused on every face, whichever of its values would have been read.

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(tokenRouter, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(faces).map((running) => running.close()));
});

const URLENCODED = 'application/x-www-form-urlencoded';
const ALICE = 'grant_type=password&username=alice&password=wonderland';

/** Posts `body` to the endpoint on `face`, and reads the answer as RFC 6749 §5.2 or §5.1, whatever the face. */
async function post(face: Face, procedure: 'token' | 'revoke', body: BodyInit, headers: Record<string, string> = { 'content-type': URLENCODED }) {
  const running = faces[face];
  const url = isRest(face) ? `${running.origin}/api/${procedure}` : `${running.origin}/trpc/${procedure}`;
  const response = await fetch(url, { method: 'POST', body, headers });
  const json: any = JSON.parse(await response.text());
  const oauth2 = isRest(face) ? undefined : json.error?.data?.oauth2;
  const refused = isRest(face) ? response.status >= 400 : json.error !== undefined;
  const body_ = !refused ? (isRest(face) ? json : json.result.data) : isRest(face) ? json : { error: oauth2?.error, error_description: oauth2?.error_description };
  return { status: response.status, headers: response.headers, body: body_, code: oauth2?.code as string | undefined };
}

const multipart = (pairs: [string, string][]) => {
  const form = new FormData();
  for (const [name, value] of pairs) form.append(name, value);
  return form;
};

describe.each(FACES)('a field sent more than once on %s', (face) => {
  it.each<[string, 'token' | 'revoke', () => BodyInit, string]>([
    ['grant_type, naming two grants', 'token', () => `grant_type=refresh_token&refresh_token=rt-1&${ALICE}`, 'grant_type'],
    ['username, the same value twice', 'token', () => `${ALICE}&username=alice`, 'username'],
    ['client_id, once empty', 'token', () => `${ALICE}&client_id=app&client_id=`, 'client_id'],
    ['client_secret, both empty', 'token', () => `${ALICE}&client_secret=&client_secret=`, 'client_secret'],
    ['grant_type, once with an escaped name', 'token', () => `grant%5Ftype=password&${ALICE}`, 'grant_type'],
    ['scope, two lists', 'token', () => `${ALICE}&scope=me&scope=admin`, 'scope'],
    ["a field of another grant (authorization_code's code)", 'token', () => `${ALICE}&code=a&code=b`, 'code'],
    ['username in a multipart form', 'token', () => multipart([['grant_type', 'password'], ['username', 'mallory'], ['password', 'wonderland'], ['username', 'alice']]), 'username'],
    ['token at the revocation endpoint', 'revoke', () => `token=rt-first-${face}&token=rt-second-${face}`, 'token'],
    ['token_type_hint at the revocation endpoint', 'revoke', () => `token=rt-hinted-${face}&token_type_hint=refresh_token&token_type_hint=access_token`, 'token_type_hint'],
  ])('refuses %s as invalid_request, not stored', async (_name, procedure, body, field) => {
    const made = body();
    const answer = await post(face, procedure, made, made instanceof FormData ? {} : { 'content-type': URLENCODED });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: `${field}: sent more than once` } });
    if (!isRest(face)) expect(answer.code).toBe('ERR_INVALID_REQUEST');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('pragma')).toBe('no-cache');
    expect(revoked.filter((token) => token.startsWith('rt-first') || token.startsWith('rt-second') || token.startsWith('rt-hinted'))).toEqual([]);
  });

  it('still drops a field no grant reads, however often it is sent', async () => {
    const answer = await post(face, 'token', `${ALICE}&resource=https://a.example&resource=https://b.example&x=&x=`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ access_token: 'at-alice-public' });
  });

  it('reads each field sent once as before, an empty one as not sent', async () => {
    const answer = await post(face, 'token', `${ALICE}&client_id=&scope=me`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ access_token: 'at-alice-public', scope: 'me' });
  });
});

/** The fields the test router's token endpoint reads: its four grants' and the common ones. */
const READ = ['grant_type', 'username', 'password', 'scope', 'client_id', 'client_secret', 'refresh_token', 'code', 'redirect_uri', 'code_verifier'] as const;
const value = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '+', '&', '=', '%', 'é', '😀'), maxLength: 6 });

// Wherever a client repeats a field the endpoint reads, with whatever values (empty ones too),
// among a request that would otherwise be granted, and however the form is encoded.
it.each(FACES)('on %s: a repeat of any field the endpoint reads, anywhere in the form, is refused naming it', async (face) => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...READ),
      fc.array(value, { minLength: 2, maxLength: 3 }),
      fc.nat(),
      fc.boolean(),
      async (field, values, seed, asMultipart) => {
        const pairs: [string, string][] = [['grant_type', 'password'], ['username', 'alice'], ['password', 'wonderland']].filter(([name]) => name !== field) as [string, string][];
        for (const [i, sent] of values.entries()) pairs.splice((seed + i * 7) % (pairs.length + 1), 0, [field, sent]);
        const body = asMultipart ? multipart(pairs) : new URLSearchParams(pairs).toString();
        const answer = await post(face, 'token', body, asMultipart ? {} : { 'content-type': URLENCODED });
        expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: `${field}: sent more than once` } });
      },
    ),
    { numRuns: 40 },
  );
});
