/**
 * docs/contract.md#token-responses (`server_error`): a fault of the server at a token or
 * revocation endpoint is answered without its message on every face, a fault thrown by a
 * middleware of the endpoint's procedure too (the procedure given to `tokenEndpoint` may carry
 * middlewares), not only one of a grant handler or `revoke`. Its status is kept, and the fault
 * itself, with its message, still reaches `onError`. A refusal a middleware throws is answered as
 * it is.
 */
import { oauth2ErrorData, revocationEndpoint, tokenEndpoint, tokenError } from '@trpc-oauth2/core/token-endpoint';
import { TRPCError, initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { SECRET, expectConcealedFault } from '../support/concealed-fault.js';

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

/** What the middleware throws, named by the grant's `scope` or the revoked `token`. */
const THROWN = {
  error: () => new Error(`tenant store at ${SECRET} failed`),
  unavailable: () => new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `tenant store at ${SECRET} is down` }),
  refusal: () => tokenError('invalid_client', 'Unknown tenant'),
} as const;
type Thrown = keyof typeof THROWN;

/** A tenant lookup in front of the endpoint, as an application puts one: it runs before the resolver. */
const tenant = t.procedure.use(async ({ getRawInput, next }) => {
  const raw = (await getRawInput()) as { scope?: string; token?: string };
  const kind = (raw.scope ?? raw.token) as Thrown | undefined;
  if (kind !== undefined && kind in THROWN) throw THROWN[kind]();
  return next();
});

const router = t.router({
  token: tokenEndpoint(tenant.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }) })
    .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' }))
    .build(),
  revoke: revocationEndpoint(tenant.meta({ openapi: { method: 'POST', path: '/revoke' } }), {
    authenticateClient: () => ({ id: null }),
    tokenTypes: ['refresh_token'],
    revoke: () => undefined,
  }),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

const post = (running: RunningFace, procedure: 'token' | 'revoke', kind: Thrown) =>
  fetch(`${running.origin}${isRest(running.face) ? '/api' : '/trpc'}/${procedure}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(procedure === 'token' ? { grant_type: 'client_credentials', scope: kind } : { token: kind }),
  });

describe.each(FACES)('a fault of a middleware of the token or revocation endpoint on %s', (face) => {
  it.each([
    ['token', 'error', 500, 'INTERNAL_SERVER_ERROR'],
    ['token', 'unavailable', 503, 'SERVICE_UNAVAILABLE'],
    ['revoke', 'error', 500, 'INTERNAL_SERVER_ERROR'],
    ['revoke', 'unavailable', 503, 'SERVICE_UNAVAILABLE'],
  ] as const)('%s: a fault of kind %s is a %i server_error, its message not sent', async (procedure, kind, status, code) => {
    const running = faces[face];
    const reported = running.errors.length;
    const response = await post(running, procedure, kind);
    // The fault itself, with its message, goes to onError and the logs.
    await expectConcealedFault(face, running, response, { status, code, reported });
  });

  it.each(['token', 'revoke'] as const)('%s: a refusal is answered as it is', async (procedure) => {
    const running = faces[face];
    const response = await post(running, procedure, 'refusal');
    const body = await response.json();
    expect(response.status).toBe(401);
    const refusal = isRest(face) ? body : { error: body.error.data.oauth2.error, error_description: body.error.data.oauth2.error_description };
    expect(refusal).toEqual({ error: 'invalid_client', error_description: 'Unknown tenant' });
  });
});
