// introspectionVerifier against a scripted endpoint on loopback: what it sends (RFC 7662 §2.1,
// RFC 6749 §2.3.1 client authentication, docs/contract.md#client-authentication) and how it maps
// every answer (RFC 7662 §2.2).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readClientCredentials } from '@trpc-oauth2/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { introspectionVerifier, TOKEN_REFUSALS } from '../src/index.js';
import { outcomeOf } from './support/refusal.js';
import { verifyOptions } from './support/verify-options.js';

interface Seen {
  authorization: string | undefined;
  contentType: string | undefined;
  form: URLSearchParams;
}

let server: Server;
let endpoint: string;
let respond: (seen: Seen, res: ServerResponse) => void;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const entry = { authorization: req.headers.authorization, contentType: req.headers['content-type'], form: new URLSearchParams(body) };
    seen.push(entry);
    respond(entry, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json = (body: unknown, status = 200) => (_seen: Seen, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
/** A 200 with `body` as JSON under `contentType` (none when `undefined`). */
const typed = (contentType: string | undefined, body: unknown) => (_seen: Seen, res: ServerResponse) => {
  res.writeHead(200, contentType === undefined ? {} : { 'content-type': contentType }).end(JSON.stringify(body));
};
// The resource these tests introspect for: every active answer names it, unless a test says otherwise.
const aud = 'https://api.example';
const verifier = (options: Partial<Parameters<typeof introspectionVerifier>[0]> = {}) =>
  introspectionVerifier({ endpoint, clientId: 'api', clientSecret: 'secret', timeout: 1_000, audience: aud, ...options });
const later = () => Math.floor(Date.now() / 1000) + 60;

describe('the request', () => {
  it('POSTs token and token_type_hint as a form, with HTTP Basic client authentication', async () => {
    respond = json({ active: true, aud, scope: 'me' });
    seen.length = 0;
    await verifier()('the-token');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.contentType).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(seen[0]!.form)).toEqual({ token: 'the-token', token_type_hint: 'access_token' });
    expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from('api:secret').toString('base64')}`);
  });

  // RFC 6749 §2.3.1: id and secret are form-urlencoded before Basic, so `:` and any other
  // character survive the trip; core's own reader must read back exactly what was configured.
  it('encodes any client id and secret so the server reads them back exactly (property)', async () => {
    respond = json({ active: true, aud });
    const vschar = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 24 });
    await fc.assert(
      fc.asyncProperty(vschar, vschar, async (clientId, clientSecret) => {
        seen.length = 0;
        await verifier({ clientId, clientSecret })('t');
        const read = readClientCredentials({ authorization: seen[0]!.authorization! }, { client_id: null, client_secret: null });
        expect(read).toEqual({ clientId, clientSecret, method: 'client_secret_basic' });
      }),
      { numRuns: 60 },
    );
  });
});

describe('the answer', () => {
  it('active: the principal from scope, exp, sub and client_id', async () => {
    const exp = later();
    respond = json({ active: true, aud, scope: 'me items', exp, sub: 'alice', client_id: 'app', extra: 1 });
    expect(await verifier()('t')).toEqual({
      subject: 'alice', clientId: 'app', scopes: ['me', 'items'], expiresAt: exp,
      claims: { active: true, aud, scope: 'me items', exp, sub: 'alice', client_id: 'app', extra: 1 },
    });
  });

  it('active, with a zod schema: principal.claims is its output; a response it refuses is refused', async () => {
    respond = json({ active: true, aud, tenant: 'acme', other: 1 });
    expect((await verifier({ claims: z.object({ tenant: z.string() }) })('t')).claims).toEqual({ tenant: 'acme' });
    expect(await outcomeOf(verifier({ claims: z.object({ tenant: z.number() }) })('t'))).toMatchObject({ description: TOKEN_REFUSALS.claims });
  });

  const refusals: [string, unknown, string][] = [
    ['active: false', { active: false }, TOKEN_REFUSALS.inactive],
    ['active: false, whatever else it says', { active: false, scope: 'me', exp: later() }, TOKEN_REFUSALS.inactive],
    ['active, but its exp is past', { active: true, aud, exp: Math.floor(Date.now() / 1000) - 1 }, TOKEN_REFUSALS.expired],
    ['active, but its nbf is to come', { active: true, aud, nbf: later() }, TOKEN_REFUSALS.notYetValid],
    ['a scope that is not a string', { active: true, aud, scope: ['me'] }, TOKEN_REFUSALS.scope],
    ['a malformed scope', { active: true, aud, scope: 'me\titems' }, TOKEN_REFUSALS.scope],
    ['an exp that is not a number', { active: true, aud, exp: 'soon' }, TOKEN_REFUSALS.invalid],
    ['a sub that is not a string', { active: true, aud, sub: 7 }, TOKEN_REFUSALS.invalid],
    ['no aud', { active: true, scope: 'me' }, TOKEN_REFUSALS.audience],
    ['an aud naming another resource', { active: true, aud: 'https://other.example' }, TOKEN_REFUSALS.audience],
    ['an aud list naming only other resources', { active: true, aud: ['https://other.example', 'https://api.example/'] }, TOKEN_REFUSALS.audience],
    ['an aud that is not a string', { active: true, aud: 7 }, TOKEN_REFUSALS.invalid],
    ['token_type refresh_token', { active: true, aud, token_type: 'refresh_token' }, TOKEN_REFUSALS.type],
    ['token_type DPoP without cnf (a bound token whose key nobody could check)', { active: true, aud, token_type: 'DPoP' }, TOKEN_REFUSALS.confirmation],
    ['token_type DPoP with a cnf that has no jkt', { active: true, aud, token_type: 'dpop', cnf: { 'x5t#S256': 'abc' } }, TOKEN_REFUSALS.confirmation],
    ['token_type DPoP with a malformed cnf.jkt', { active: true, aud, token_type: 'DPoP', cnf: { jkt: 'short' } }, TOKEN_REFUSALS.confirmation],
    ['a token_type that is not a string', { active: true, aud, token_type: 1 }, TOKEN_REFUSALS.invalid],
    ['a 400 (the server does not accept the token)', { status: 400, body: { error: 'invalid_request' } }, TOKEN_REFUSALS.rejected],
    ['a 400 without a JSON body', { status: 400, body: '<html>' }, TOKEN_REFUSALS.rejected],
  ];
  it.each(refusals)('%s → 401 invalid_token', async (_name, body, description) => {
    const scripted = body as { status?: number; body?: unknown };
    respond = scripted.status === undefined ? json(body) : json(scripted.body, scripted.status);
    expect(await outcomeOf(verifier()('t'))).toEqual({
      kind: 'refused', description, challenge: `Bearer error="invalid_token", error_description="${description}"`,
    });
  });

  const failures: [string, (seen: Seen, res: ServerResponse) => void][] = [
    ['401 (the resource server is not allowed to introspect)', json({ error: 'invalid_client' }, 401)],
    ['400 invalid_client (its own credentials, not the token)', json({ error: 'invalid_client' }, 400)],
    ['500', json({}, 500)],
    ['a redirect', (_seen, res) => void res.writeHead(302, { location: 'https://elsewhere.example/' }).end()],
    ['not JSON', (_seen, res) => void res.writeHead(200).end('<html>')],
    // RFC 7662 §2.2: the answer is application/json. JSON under another type (a proxy's page, a
    // misrouted catch-all) is not the server's verdict, even when it reads as an active token's.
    ['an active answer served as text/html', typed('text/html; charset=utf-8', { active: true, aud, scope: 'me' })],
    ['an active answer without a Content-Type', typed(undefined, { active: true, aud, scope: 'me' })],
    ['an active answer served as text/plain', typed('text/plain', { active: true, aud })],
    ['an active answer served as application/jsonp', typed('application/jsonp', { active: true, aud })],
    ['JSON without a boolean active', json({ active: 'true' })],
    // RFC 7662 §2.2: `active` is REQUIRED; an answer without it is no verdict on the token.
    ['JSON without active', json({ aud, scope: 'me' })],
    ['active: null', json({ active: null, aud })],
    ['204, no body', (_seen, res) => void res.writeHead(204).end()],
    // No Content-Length to refuse it by: the bytes are counted as they arrive, and the rest is cancelled.
    ['a chunked body that never ends', (_seen, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"active":true,"pad":"');
      const chunk = 'x'.repeat(8 * 1024);
      const timer = setInterval(() => res.write(chunk), 5);
      res.on('close', () => clearInterval(timer));
    }],
    ['a JSON array', json([{ active: true, aud }])],
    ['a body past 64 KiB', json({ active: true, aud, padding: 'x'.repeat(70 * 1024) })],
    ['no answer in time', () => undefined],
    // A 400 is read within the same bounds: past them, it is no verdict on the token.
    ['a 400 whose body is past 64 KiB', json({ error: 'invalid_request', padding: 'x'.repeat(70 * 1024) }, 400)],
    ['a 400 whose body does not end in time', (_seen, res) => void res.writeHead(400, { 'content-type': 'application/json' }).write('{"error":')],
  ];
  it.each(failures)('%s → 503, never a 401 that blames the client', async (_name, behaviour) => {
    respond = behaviour;
    const started = Date.now();
    expect(await outcomeOf(verifier({ timeout: 300 })('t'))).toEqual({ kind: 'unavailable', code: 'ERR_INTROSPECTION_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(4_000); // bounded by the timeout, with room for a loaded machine
  });
});

describe('a redirect', () => {
  // A redirect followed would post the token (and this server's credentials) wherever it points.
  it('is never followed: 503 after the one request, even to the endpoint itself', async () => {
    let answered = 0;
    respond = (_seen, res) => {
      answered += 1;
      if (answered === 1) res.writeHead(307, { location: endpoint }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ active: true, aud, scope: 'me' }));
    };
    seen.length = 0;
    expect(await outcomeOf(verifier()('t'))).toEqual({ kind: 'unavailable', code: 'ERR_INTROSPECTION_UNAVAILABLE' });
    expect(seen).toHaveLength(1);
  });
});

describe('a token over 64 KiB', () => {
  it('is refused as invalid without being sent to the endpoint', async () => {
    respond = json({ active: true, aud, scope: 'me' });
    seen.length = 0;
    expect(await outcomeOf(verifier()('t'.repeat(64 * 1024 + 1)))).toMatchObject({ kind: 'refused', description: TOKEN_REFUSALS.invalid });
    expect(seen).toHaveLength(0);
    expect((await verifier()('t'.repeat(64 * 1024))).scopes).toEqual(['me']);
    expect(seen).toHaveLength(1);
  });
});

// RFC 8259 §4: member names SHOULD be unique; JSON.parse keeps the last of two, other parsers the
// first. An answer naming `active` (or what decides the token's acceptance) twice says two things.
describe('an answer naming a member twice', () => {
  const raw = (text: string) => (_seen: Seen, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'application/json' }).end(text);
  const jkt = 'A'.repeat(43);
  const base: Record<string, unknown> = { active: true, aud, scope: 'me', exp: later(), iss: 'https://issuer.example', token_type: 'Bearer' };
  const values: Record<string, unknown[]> = {
    active: [true, false],
    scope: ['me', 'admin', 'me admin'],
    exp: [later(), Math.floor(Date.now() / 1000) - 1],
    aud: [aud, 'https://other.example', [aud]],
    iss: ['https://issuer.example', 'https://evil.example'],
    token_type: ['Bearer', 'DPoP', 'refresh_token'],
    cnf: [{ jkt }, { jkt: 'B'.repeat(43) }, {}],
  };

  it('admits no token, whichever member and values, in either order, escaped or not (property)', async () => {
    const verify = verifier({ issuer: 'https://issuer.example' });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(values)).chain((name) =>
          fc.tuple(fc.constant(name), fc.constantFrom(...values[name]!), fc.constantFrom(...values[name]!), fc.boolean(), fc.nat()),
        ),
        async ([name, first, second, escaped, at]) => {
          // The name a second time, spelled as is or with an escape JSON reads as the same name.
          const again = escaped ? `\\u${name.charCodeAt(0).toString(16).padStart(4, '0')}${name.slice(1)}` : name;
          const members = Object.entries({ ...base, [name]: first }).map(([member, value]) => `${JSON.stringify(member)}:${JSON.stringify(value)}`);
          members.splice(at % (members.length + 1), 0, `"${again}":${JSON.stringify(second)}`);
          respond = raw(`{${members.join(',')}}`);
          expect(await outcomeOf(verify('t'))).toEqual({ kind: 'unavailable', code: 'ERR_INTROSPECTION_UNAVAILABLE' });
        },
      ),
      { numRuns: 150 },
    );
  });

  it("admits no token whose cnf names jkt twice, and takes one name in two objects", async () => {
    respond = raw(`{"active":true,"aud":${JSON.stringify(aud)},"token_type":"DPoP","cnf":{"jkt":"${jkt}","jkt":"${'B'.repeat(43)}"}}`);
    expect(await outcomeOf(verifier()('t'))).toEqual({ kind: 'unavailable', code: 'ERR_INTROSPECTION_UNAVAILABLE' });
    respond = raw(`{"active":true,"aud":${JSON.stringify(aud)},"scope":"me","ext":{"aud":"x","scope":"y"},"list":[{"a":1},{"a":2}]}`);
    expect((await verifier()('t')).scopes).toEqual(['me']);
  });
});

// A token from a WebSocket's connection params or `createCaller` may hold a lone surrogate, which
// the form would carry as U+FFFD: the endpoint would be asked about another token.
describe('a token holding a lone surrogate', () => {
  it('is refused as invalid without being sent to the endpoint, cached or not (property)', async () => {
    respond = json({ active: true, aud, scope: 'me' });
    const plain = verifier();
    const cached = verifier({ cache: { maxEntries: 10 } });
    const surrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    // No surrogate around it: the one between them is lone.
    const text = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '.', '_', '\uFFFD'), maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(text, surrogate, text, fc.boolean(), async (before, lone, after, useCache) => {
        seen.length = 0;
        const outcome = await outcomeOf((useCache ? cached : plain)(`${before}${lone}${after}`));
        expect(outcome).toMatchObject({ kind: 'refused', description: TOKEN_REFUSALS.invalid });
        expect(seen).toHaveLength(0);
      }),
      { numRuns: 100 },
    );
    // A token spelling U+FFFD itself is sent, as it is.
    seen.length = 0;
    expect((await plain('a\uFFFDb')).scopes).toEqual(['me']);
    expect(seen.map((entry) => entry.form.get('token'))).toEqual(['a\uFFFDb']);
  });
});

describe('the media type and the clock', () => {
  it('accept application/json with parameters and in any case, and a +json type', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', 'application/token-introspection+json']) {
      respond = typed(type, { active: true, aud, scope: 'me' });
      expect((await verifier()('t')).scopes, type).toEqual(['me']);
    }
  });

  // An authorization server whose clock runs ahead says `nbf` (and `iat`) is its now: without a
  // tolerance every fresh token is "not valid yet" here until the clocks agree.
  it('clockTolerance: an nbf or an exp that far off this clock is accepted, and expiresAt is exp plus it', async () => {
    const now = Math.floor(Date.now() / 1000);
    respond = json({ active: true, aud, nbf: now + 5, exp: now + 60 });
    expect(await outcomeOf(verifier()('t'))).toMatchObject({ description: TOKEN_REFUSALS.notYetValid });
    expect(await verifier({ clockTolerance: 30 })('t')).toMatchObject({ expiresAt: now + 90 });
    respond = json({ active: true, aud, exp: now - 5 });
    expect(await outcomeOf(verifier()('t'))).toMatchObject({ description: TOKEN_REFUSALS.expired });
    expect(await verifier({ clockTolerance: 30 })('t')).toMatchObject({ expiresAt: now + 25 });
    // Beyond the tolerance, both are refused still.
    respond = json({ active: true, aud, nbf: now + 120 });
    expect(await outcomeOf(verifier({ clockTolerance: 30 })('t'))).toMatchObject({ description: TOKEN_REFUSALS.notYetValid });
    respond = json({ active: true, aud, exp: now - 120 });
    expect(await outcomeOf(verifier({ clockTolerance: 30 })('t'))).toMatchObject({ description: TOKEN_REFUSALS.expired });
  });

  it('clockTolerance that is not a finite number, 0 or more, throws when the verifier is built', () => {
    for (const clockTolerance of [NaN, Infinity, -1, '30' as never]) expect(() => verifier({ clockTolerance }), String(clockTolerance)).toThrow(TypeError);
    expect(() => verifier({ clockTolerance: 0 })).not.toThrow();
  });
});

describe('the audience and the issuer', () => {
  it('accept an aud list naming this resource among others, and any of several configured audiences', async () => {
    respond = json({ active: true, aud: ['https://other.example', aud], scope: 'me' });
    expect((await verifier()('t')).scopes).toEqual(['me']);
    respond = json({ active: true, aud: 'https://second.example' });
    expect((await verifier({ audience: [aud, 'https://second.example'] })('t')).scopes).toEqual([]);
  });

  it('accept Bearer and access-token types, in any case', async () => {
    for (const type of ['Bearer', 'bearer', 'access_token', 'urn:ietf:params:oauth:token-type:access_token']) {
      respond = json({ active: true, aud, token_type: type });
      expect((await verifier()('t')).scopes).toEqual([]);
    }
  });

  // RFC 9449 §6.2: the answer for a DPoP-bound token says `token_type: "DPoP"` and carries the key
  // it is bound to; the principal carries `cnf`, for the DPoP reader to check the proof against.
  it('accept DPoP, in any case, with the cnf.jkt it is bound to', async () => {
    const cnf = { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' };
    for (const type of ['DPoP', 'dpop', 'DPOP']) {
      respond = json({ active: true, aud, token_type: type, scope: 'me', cnf });
      expect(await verifier()('t')).toMatchObject({ scopes: ['me'], cnf });
    }
  });

  it('refuse another issuer when one is configured, and accept an answer that names none', async () => {
    respond = json({ active: true, aud, iss: 'https://other-issuer.example' });
    expect(await outcomeOf(verifier({ issuer: 'https://issuer.example' })('t'))).toMatchObject({ description: TOKEN_REFUSALS.issuer });
    respond = json({ active: true, aud, iss: 'https://issuer.example' });
    expect((await verifier({ issuer: 'https://issuer.example' })('t')).scopes).toEqual([]);
    respond = json({ active: true, aud });
    expect((await verifier({ issuer: 'https://issuer.example' })('t')).scopes).toEqual([]);
  });

  it('expose the audience, read-only, cached or not', () => {
    expect(verifier().audience).toEqual([aud]);
    expect(verifier({ audience: [aud, 'b'], cache: { maxEntries: 1 } }).audience).toEqual([aud, 'b']);
    expect(() => ((verifier().audience as unknown as string[]).push('x'))).toThrow(TypeError);
  });
});

describe('the cache', () => {
  it('is off by default: every verification asks the endpoint', async () => {
    respond = json({ active: true, aud, exp: later() });
    seen.length = 0;
    const verify = verifier();
    await verify('t');
    await verify('t');
    expect(seen).toHaveLength(2);
  });

  it('when on, keeps active answers and never inactive ones', async () => {
    const verify = verifier({ cache: { maxEntries: 10 } });
    respond = json({ active: true, aud, exp: later() });
    seen.length = 0;
    await verify('good');
    await verify('good');
    expect(seen).toHaveLength(1);
    respond = json({ active: false });
    await expect(verify('bad')).rejects.toThrow(TOKEN_REFUSALS.inactive);
    await expect(verify('bad')).rejects.toThrow(TOKEN_REFUSALS.inactive);
    expect(seen).toHaveLength(3);
  });

  // A stream's re-check (`fresh`) that finds the endpoint down has learnt nothing of the token: the
  // remembered answer stands for its maxAge. One that finds it refused forgets it.
  it('keeps an answer when a fresh re-check finds the endpoint unavailable, and forgets it when one is refused', async () => {
    const verify = verifier({ cache: { maxEntries: 10 } });
    respond = json({ active: true, aud, scope: 'me', exp: later() });
    seen.length = 0;
    expect((await verify('kept')).scopes).toEqual(['me']);
    for (const down of [json({}, 500), (_seen: Seen, res: ServerResponse) => void res.writeHead(502).end()]) {
      respond = down;
      expect(await outcomeOf(verify('kept', { ...verifyOptions(), fresh: true }))).toEqual({ kind: 'unavailable', code: 'ERR_INTROSPECTION_UNAVAILABLE' });
      expect((await verify('kept')).scopes).toEqual(['me']);
    }
    expect(seen).toHaveLength(3);
    respond = json({ active: false });
    expect(await outcomeOf(verify('kept', { ...verifyOptions(), fresh: true }))).toMatchObject({ kind: 'refused', description: TOKEN_REFUSALS.inactive });
    expect(await outcomeOf(verify('kept'))).toMatchObject({ kind: 'refused', description: TOKEN_REFUSALS.inactive });
    expect(seen).toHaveLength(5);
  });
});

it('refuses options it cannot honour', () => {
  expect(() => verifier({ endpoint: 'http://issuer.example/introspect' })).toThrow(TypeError);
  expect(() => verifier({ endpoint: 'not a url' })).toThrow(TypeError);
  // fetch() refuses to request a URL with credentials: every verification would answer 503.
  for (const withCredentials of [endpoint.replace('http://', 'http://user:pass@'), endpoint.replace('http://', 'http://user@'), 'https://:pass@issuer.example/introspect']) {
    expect(() => verifier({ endpoint: withCredentials }), withCredentials).toThrow(new TypeError('endpoint must not carry credentials'));
    expect(() => verifier({ endpoint: new URL(withCredentials) }), withCredentials).toThrow(new TypeError('endpoint must not carry credentials'));
  }
  expect(() => verifier({ clientId: '' })).toThrow(TypeError);
  expect(() => verifier({ timeout: 0 })).toThrow(TypeError);
  // AbortSignal.timeout throws for a fraction and fires at once past 2³¹ − 1 ms: every call would be a 503.
  for (const timeout of [NaN, Infinity, -1, 1.5, 2 ** 31, '5s' as never]) expect(() => verifier({ timeout }), String(timeout)).toThrow(TypeError);
  expect(() => verifier({ audience: '' })).toThrow(TypeError);
  expect(() => verifier({ audience: [] as never })).toThrow(TypeError);
  expect(() => verifier({ audience: undefined as never })).toThrow(TypeError);
  expect(() => verifier({ issuer: [] as never })).toThrow(TypeError);
});

describe('the cnf member (RFC 9449 §6.2)', () => {
  it('gives the key a token is bound to as principal.cnf, and refuses a malformed one', async () => {
    const jkt = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
    respond = json({ active: true, aud, scope: 'me', exp: later(), cnf: { jkt } });
    expect((await verifier()('bound')).cnf).toEqual({ jkt });
    respond = json({ active: true, aud, scope: 'me', exp: later(), cnf: { jkt: 42 } });
    await expect(verifier()('bound')).rejects.toMatchObject({ cause: { message: TOKEN_REFUSALS.confirmation } });
  });
});
