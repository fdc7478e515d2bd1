/**
 * docs/contract.md#client-authentication: RFC 6749 §5.2 has no 403 at a token endpoint and
 * answers 401 only with `invalid_client`. Wherever the application refuses a request there with
 * tRPC's own codes (a middleware of the endpoint's procedure, `authenticateClient`, a grant's
 * handler, `revoke`), `UNAUTHORIZED` is 401 `invalid_client` (with `WWW-Authenticate: Basic` to a
 * client that authenticated with Basic) and `FORBIDDEN` is 400 `unauthorized_client`; a refusal
 * the application spelled with `tokenError(…)` stands. Every face answers it alike: the REST
 * faces' body and the tRPC faces' `data.oauth2` say the same `error`, `error_description` and
 * `challenge`, with the same status.
 */
import { type ClientCredentials } from '@trpc-oauth2/core';
import { oauth2ErrorData, revocationEndpoint, tokenEndpoint, tokenError } from '@trpc-oauth2/core/token-endpoint';
import { TRPCError, initTRPC } from '@trpc/server';
import fc from 'fast-check';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

/** Where the application throws, and what. */
type Where = 'middleware' | 'authenticateClient' | 'handler';
type Thrown = 'UNAUTHORIZED' | 'FORBIDDEN' | 'tokenError';
interface Plan {
  where: Where;
  thrown: Thrown;
  message: string;
}

/** What the request under test meets: set before each request (the servers run in this process). */
let plan: Plan | undefined;

const throwIf = (where: Where): void => {
  if (plan?.where !== where) return;
  if (plan.thrown === 'tokenError') throw tokenError('invalid_scope', plan.message);
  throw new TRPCError({ code: plan.thrown, message: plan.message });
};

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

/** A check in front of the endpoint, as an application puts one (a tenant, a rate plan). */
const guarded = t.procedure.use(({ next }) => {
  throwIf('middleware');
  return next();
});

const authenticateClient = (credentials: ClientCredentials) => {
  throwIf('authenticateClient');
  return { id: credentials.clientId };
};

const router = t.router({
  token: tokenEndpoint(guarded.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient })
    .grant('client_credentials', () => {
      throwIf('handler');
      return { access_token: 'at', token_type: 'Bearer' };
    })
    .build(),
  revoke: revocationEndpoint(guarded.meta({ openapi: { method: 'POST', path: '/revoke' } }), {
    authenticateClient,
    tokenTypes: ['refresh_token'],
    revoke: () => throwIf('handler'),
  }),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((running) => running.close())));

type Credentials = 'basic' | 'form' | 'none';

/** Posts a well-formed request to `procedure` on `face`; what it answered, read alike on every face. */
async function post(face: Face, procedure: 'token' | 'revoke', credentials: Credentials) {
  const running = faces[face];
  const fields = new URLSearchParams(procedure === 'token' ? { grant_type: 'client_credentials' } : { token: 'rt-1' });
  const headers: Record<string, string> = {};
  if (credentials === 'basic') headers.authorization = `Basic ${btoa('app:s3cret')}`;
  if (credentials === 'form') for (const [name, value] of Object.entries({ client_id: 'app', client_secret: 's3cret' })) fields.set(name, value);
  const response = await fetch(`${running.origin}${isRest(face) ? '/api' : '/trpc'}/${procedure}`, { method: 'POST', body: fields, headers });
  const json: any = await response.json();
  const refusal = isRest(face)
    ? { error: json.error, error_description: json.error_description, challenge: response.headers.get('www-authenticate') }
    : { error: json.error?.data?.oauth2?.error, error_description: json.error?.data?.oauth2?.error_description, challenge: json.error?.data?.oauth2?.challenge };
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    cacheControl: response.headers.get('cache-control'),
    refusal,
    // tRPC's own account of the status, which must agree with the response's.
    trpcStatus: isRest(face) ? response.status : json.error?.data?.httpStatus,
  };
}

/** RFC 6749 §5.2's `error_description` characters: `"` and `\` and anything past `~` are not among them. */
const description = (message: string, error: string) => {
  const kept = message.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '');
  return kept.trim() === '' ? `The request was refused (${error})` : kept;
};

/** What the client must see for `plan` sent with `credentials`. */
function expected({ thrown, message }: Plan, credentials: Credentials) {
  if (thrown === 'UNAUTHORIZED') {
    const challenge = credentials === 'basic' ? 'Basic' : null;
    return { status: 401, challenge, refusal: { error: 'invalid_client', error_description: description(message, 'invalid_client'), challenge } };
  }
  const error = thrown === 'FORBIDDEN' ? 'unauthorized_client' : 'invalid_scope';
  return { status: 400, challenge: null, refusal: { error, error_description: description(message, error), challenge: null } };
}

describe.each(FACES)("the application's own refusal at a token or revocation endpoint on %s", (face) => {
  it.each<[Where, 'token' | 'revoke']>([
    ['middleware', 'token'],
    ['middleware', 'revoke'],
    ['authenticateClient', 'token'],
    ['authenticateClient', 'revoke'],
    ['handler', 'token'],
    ['handler', 'revoke'],
  ])('a FORBIDDEN of the %s at %s is 400 unauthorized_client, never a 403', async (where, procedure) => {
    plan = { where, thrown: 'FORBIDDEN', message: 'This client may not do that' };
    const answer = await post(face, procedure, 'form');
    expect(answer).toEqual({
      status: 400,
      challenge: null,
      cacheControl: 'no-store',
      refusal: { error: 'unauthorized_client', error_description: 'This client may not do that', challenge: null },
      trpcStatus: 400,
    });
  });

  it.each(['token', 'revoke'] as const)('an UNAUTHORIZED of a middleware at %s carries the invalid_client refusal, with the Basic challenge to a Basic client', async (procedure) => {
    plan = { where: 'middleware', thrown: 'UNAUTHORIZED', message: 'Unknown tenant' };
    const answer = await post(face, procedure, 'basic');
    expect(answer).toEqual({
      status: 401,
      challenge: 'Basic',
      cacheControl: 'no-store',
      refusal: { error: 'invalid_client', error_description: 'Unknown tenant', challenge: 'Basic' },
      trpcStatus: 401,
    });
  });

  it('answers every arrangement as RFC 6749 §5.2 has it (property)', async () => {
    const message = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '"', '\\', 'é', '.', '!'), minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(
        fc.record({ where: fc.constantFrom<Where>('middleware', 'authenticateClient', 'handler'), thrown: fc.constantFrom<Thrown>('UNAUTHORIZED', 'FORBIDDEN', 'tokenError'), message }),
        fc.constantFrom('token' as const, 'revoke' as const),
        fc.constantFrom<Credentials>('basic', 'form', 'none'),
        async (arranged, procedure, credentials) => {
          plan = arranged;
          const answer = await post(face, procedure, credentials);
          expect(answer).toEqual({ ...expected(arranged, credentials), cacheControl: 'no-store', trpcStatus: expected(arranged, credentials).status });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('answers a request the application does not refuse', async () => {
    plan = undefined;
    const answer = await post(face, 'token', 'form');
    expect(answer.status).toBe(200);
  });
});
