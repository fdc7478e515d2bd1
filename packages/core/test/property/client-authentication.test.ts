import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getOAuth2Error, readClientCredentials, type ClientCredentials } from '../../src/index.js';
import { encodeBasicCredentials } from '../../src/protocol.js';
import { tokenEndpoint } from '../../src/token-endpoint/index.js';

// docs/contract.md#client-authentication: the token endpoint's client authentication, over every
// arrangement of Basic credentials and form fields a client can send.

const RUNS = { numRuns: 300 };

/** The clients of the endpoint: any id and secret the property draws is registered, or not. */
const registered = new Map<string, string>();

const t = initTRPC.context<{ headers: Record<string, string> }>().create();
const seen: ClientCredentials[] = [];
const router = t.router({
  token: tokenEndpoint(t.procedure, {
    authenticateClient: (credentials) => {
      seen.push(credentials);
      if (credentials.method === 'none') return { id: null };
      const secret = registered.get(credentials.clientId!);
      return secret !== undefined && secret === (credentials.clientSecret ?? '') ? { id: credentials.clientId } : null;
    },
  })
    .grant('client_credentials', ({ client }) => ({ access_token: `at-${client.id}`, token_type: 'Bearer' }))
    .build(),
});
const caller = (headers: Record<string, string>) => router.createCaller({ headers });

/** Text with the characters RFC 6749 §2.3.1's encoding must survive: `:` `%` `+`, spaces, non-ASCII. */
const credentialText = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ':', '%', '+', ' ', '/', '=', 'é', '漢', '😀', '&'), maxLength: 12 });
const clientId = credentialText.filter((id) => id.length > 0);
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`, 'utf8').toString('base64')}`;

/** A fresh run of a property: the client `id` registered with `secret` when `known`, nothing seen yet. */
const startRun = (id: string, secret: string, known: boolean) => {
  registered.clear();
  if (known) registered.set(id, secret);
  seen.length = 0;
};

const settle = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error: getOAuth2Error(error) }),
  );

describe('client authentication at the token endpoint (property)', () => {
  it('authenticates the client Basic names, whatever characters its id and secret hold (empty secrets included)', async () => {
    await fc.assert(
      fc.asyncProperty(clientId, credentialText, fc.boolean(), async (id, secret, known) => {
        startRun(id, secret, known);
        const result = await settle(caller({ authorization: basic(id, secret) }).token({ grant_type: 'client_credentials' }));
        // An empty secret is no secret, as an empty form client_secret is not sent.
        expect(seen).toEqual([{ clientId: id, clientSecret: secret === '' ? null : secret, method: 'client_secret_basic' }]);
        if (known) expect(result).toEqual({ ok: true, value: { access_token: `at-${id}`, token_type: 'Bearer' } });
        else {
          // Basic credentials: the refusal names the scheme to retry with (RFC 6749 §5.2).
          expect(result.ok).toBe(false);
          expect(result.ok || { status: result.error?.status, error: result.error?.error, headers: result.error?.headers }).toEqual({
            status: 401,
            error: 'invalid_client',
            headers: { 'WWW-Authenticate': 'Basic' },
          });
        }
      }),
      RUNS,
    );
  });

  it('authenticates the form fields alike, and refuses them without a challenge', async () => {
    await fc.assert(
      fc.asyncProperty(clientId, credentialText, fc.boolean(), async (id, secret, known) => {
        startRun(id, secret, known);
        const form = { grant_type: 'client_credentials' as const, client_id: id, ...(secret === '' ? {} : { client_secret: secret }) };
        const result = await settle(caller({}).token(form));
        expect(seen).toEqual([{ clientId: id, clientSecret: secret === '' ? null : secret, method: 'client_secret_post' }]);
        if (known) expect(result.ok).toBe(true);
        else expect(result.ok || { status: result.error?.status, headers: result.error?.headers }).toEqual({ status: 401, headers: {} });
      }),
      RUNS,
    );
  });

  // The application's check reads one client whichever method it came by: an empty secret is
  // null both in Basic (`app:`) and in the form (`client_secret=`, or none sent).
  it('gives the application the same id and secret for a client over Basic as over the form', async () => {
    await fc.assert(
      fc.asyncProperty(clientId, credentialText, fc.constantFrom('absent', 'empty'), async (id, secret, emptyAs) => {
        startRun(id, secret, true);
        const formSecret = secret !== '' ? { client_secret: secret } : emptyAs === 'empty' ? { client_secret: '' } : {};
        const overBasic = await settle(caller({ authorization: basic(id, secret) }).token({ grant_type: 'client_credentials' }));
        const overForm = await settle(caller({}).token({ grant_type: 'client_credentials', client_id: id, ...formSecret }));
        expect(seen.map(({ clientId, clientSecret }) => ({ clientId, clientSecret }))).toEqual([
          { clientId: id, clientSecret: secret === '' ? null : secret },
          { clientId: id, clientSecret: secret === '' ? null : secret },
        ]);
        expect([overBasic.ok, overForm.ok]).toEqual([true, true]);
      }),
      RUNS,
    );
  });

  // A form client_id naming the Basic client is no second method (RFC 6749 §3.2.1).
  it('reads Basic with a form client_id naming the same client as Basic alone', async () => {
    await fc.assert(
      fc.asyncProperty(clientId, credentialText, fc.boolean(), async (id, secret, known) => {
        startRun(id, secret, known);
        const result = await settle(caller({ authorization: basic(id, secret) }).token({ grant_type: 'client_credentials', client_id: id }));
        expect(seen).toEqual([{ clientId: id, clientSecret: secret === '' ? null : secret, method: 'client_secret_basic' }]);
        expect(result.ok).toBe(known);
      }),
      RUNS,
    );
  });

  it('refuses both methods at once with 400 invalid_request, before asking the application', async () => {
    await fc.assert(
      fc.asyncProperty(clientId, credentialText, fc.option(clientId, { nil: undefined }), fc.option(credentialText.filter(Boolean), { nil: undefined }), async (id, secret, formId, formSecret) => {
        // Two methods: a form secret, or a form client_id naming another client than Basic's.
        fc.pre(formSecret !== undefined || (formId !== undefined && formId !== id));
        seen.length = 0;
        const form = { grant_type: 'client_credentials' as const, ...(formId === undefined ? {} : { client_id: formId }), ...(formSecret === undefined ? {} : { client_secret: formSecret }) };
        const result = await settle(caller({ authorization: basic(id, secret) }).token(form));
        expect(seen).toEqual([]);
        expect(result.ok || { status: result.error?.status, error: result.error?.error, headers: result.error?.headers }).toEqual({ status: 400, error: 'invalid_request', headers: {} });
      }),
      RUNS,
    );
  });

  it('refuses malformed Basic credentials with 401 invalid_client and the Basic challenge, before asking the application', async () => {
    const malformed = fc.oneof(
      fc.string({ unit: fc.constantFrom('!', '*', '-', '_', '.', 'a', '='), minLength: 1, maxLength: 16 }).filter((text) => !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)),
      // Well-formed base64 of text with no colon, an empty id, or bytes that are not UTF-8.
      credentialText.filter((text) => !text.includes(':')).map((text) => Buffer.from(text, 'utf8').toString('base64')).filter((b64) => b64 !== ''),
      credentialText.map((secret) => Buffer.from(`:${secret}`, 'utf8').toString('base64')).filter((b64) => b64 !== 'Og=='),
      fc.uint8Array({ minLength: 1, maxLength: 8 }).map((bytes) => Buffer.concat([Buffer.from([0xff]), Buffer.from(':'), Buffer.from(bytes)]).toString('base64')),
      // An id or secret whose form-encoding is broken: a `%` without two hex digits, or escapes
      // that are not UTF-8 (`%FF`, a lone `%C3`), anywhere in either part. Never another client.
      fc
        .tuple(clientId, credentialText, fc.constantFrom('%', '%4', '%G0', '%%41', '%FF', '%C3', '%E2%82', '%ED%A0%80', '%C0%AF'), fc.boolean(), fc.nat())
        .map(([id, secret, escape, inId, at]) => {
          const [left, right] = [encodeURIComponent(id), encodeURIComponent(secret)];
          // A `z` after the escape: a hex digit of the part there could complete it (`%4` `a`).
          const broken = (part: string) => `${part.slice(0, at % (part.length + 1))}${escape}z${part.slice(at % (part.length + 1))}`;
          return Buffer.from(`${inId ? broken(left) : left}:${inId ? right : broken(right)}`, 'utf8').toString('base64');
        }),
    );
    await fc.assert(
      fc.asyncProperty(malformed, async (credential) => {
        seen.length = 0;
        const result = await settle(caller({ authorization: `Basic ${credential}` }).token({ grant_type: 'client_credentials' }));
        expect(seen).toEqual([]);
        expect(result.ok || { status: result.error?.status, error: result.error?.error, headers: result.error?.headers }).toEqual({
          status: 401,
          error: 'invalid_client',
          headers: { 'WWW-Authenticate': 'Basic' },
        });
      }),
      RUNS,
    );
  });
});

describe('the Basic credential, as a client encodes it (encodeBasicCredentials, for verifiers that call a server)', () => {
  const formEncoded = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

  it('reads back as the same id and secret at the token endpoint', () => {
    fc.assert(
      fc.property(clientId, credentialText, (id, secret) => {
        const read = readClientCredentials({ authorization: `Basic ${encodeBasicCredentials(id, secret)}` }, { client_id: null, client_secret: null });
        expect(read).toEqual({ clientId: id, clientSecret: secret === '' ? null : secret, method: 'client_secret_basic' });
      }),
      RUNS,
    );
  });

  it('is base64 of the UTF-8 of the form-encoded parts, byte for byte as Buffer writes it', () => {
    fc.assert(
      fc.property(credentialText, credentialText, (id, secret) => {
        expect(encodeBasicCredentials(id, secret)).toBe(Buffer.from(`${formEncoded(id)}:${formEncoded(secret)}`, 'utf8').toString('base64'));
      }),
      RUNS,
    );
  });
});
