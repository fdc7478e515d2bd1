// The `claims` schema, judged alike by both verifiers (docs/contract.md#verified-readers): a
// schema that reports issues refuses the token (401 invalid_token); a schema whose own code
// throws is a fault of the server, never blamed on the client's token: the verifier rejects with
// what it threw, and the reader answers 500 with it as the cause.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { oauth2PasswordBearer, type Principal, type TokenVerifier } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { introspectionVerifier, TOKEN_REFUSALS } from '../src/index.js';
import { outcomeOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const now = () => Math.floor(Date.now() / 1000);

let keys: Awaited<ReturnType<typeof generateKeyPair>>;
let server: Server;
let endpoint: string;
beforeAll(async () => {
  keys = await generateKeyPair('ES256');
  // An introspection endpoint that calls every token active, for this resource, of tenant acme.
  server = createServer((req, res) => {
    req.resume().on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ active: true, aud: AUDIENCE, sub: 'alice', scope: 'me', tenant: 'acme' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A verifier with `claims` as its schema, and a token it accepts unless the schema says otherwise. */
interface Subject {
  name: string;
  verifier: (claims: z.ZodType) => TokenVerifier<Principal>;
  token: () => Promise<string>;
}

const SUBJECTS: Subject[] = [
  ...VERIFICATION_PATHS.map((path) => ({
    name: `jwtVerifier (${path.name})`,
    verifier: (claims: z.ZodType) => path.jwtVerifier({ key: keys.publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE, claims }),
    token: () =>
      new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', exp: now() + 60, scope: 'me', tenant: 'acme' })
        .setProtectedHeader({ alg: 'ES256' })
        .sign(keys.privateKey),
  })),
  {
    name: 'introspectionVerifier',
    verifier: (claims: z.ZodType) => introspectionVerifier({ endpoint, clientId: 'api', clientSecret: 'secret', timeout: 1_000, audience: AUDIENCE, claims }),
    token: async () => 'an-opaque-token',
  },
];

/** What the schema's own code throws: a bug of the server's, not a verdict on the token. */
const fault = new Error('the tenant directory is down');
const throwing = z.looseObject({ tenant: z.string() }).refine(() => {
  throw fault;
});

/** The answer of a procedure behind a bearer reader that verifies with `verify`. */
async function answerOf(verify: TokenVerifier<Principal>, token: string): Promise<unknown> {
  const t = initTRPC.context<{ headers: Record<string, string> }>().create();
  const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Me' }, verify });
  const router = t.router({ me: t.procedure.use(auth).query(() => 'ran') });
  return t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } }).me().catch((error: unknown) => error);
}

describe.each(SUBJECTS)('the claims schema of $name', ({ verifier, token }) => {
  it('accepts the claims it parses, and they are principal.claims', async () => {
    const principal = (await verifier(z.object({ tenant: z.literal('acme') }))(await token())) as Principal & { claims: unknown };
    expect(principal.claims).toEqual({ tenant: 'acme' });
  });

  it('refuses the token when the schema reports issues: 401 invalid_token, the claims invalid', async () => {
    const verify = verifier(z.object({ tenant: z.literal('other') }));
    expect(await outcomeOf(verify(await token()))).toMatchObject({ kind: 'refused', description: TOKEN_REFUSALS.claims });
    expect(await answerOf(verify, await token())).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('rejects with what the schema threw, and the reader answers 500 with it as the cause, never 401', async () => {
    const verify = verifier(throwing);
    await expect(verify(await token())).rejects.toBe(fault);
    expect(await answerOf(verify, await token())).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', cause: fault });
  });
});
