/**
 * docs/contract.md#token-responses (`server_error`): a fault of the server at a token or
 * revocation endpoint is answered with one status on every face. A `TRPCError` of a 5xx code
 * keeps its status (RFC 7009 §2.2.1 gives a revocation endpoint's 503 a meaning: the client may
 * retry, and assume the token still exists); any other fault is a 500. The body is
 * `server_error` over REST, tRPC's error shape over tRPC, and never carries the fault's message.
 */
import { oauth2ErrorData, revocationEndpoint, tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { TRPCError, initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { SECRET, expectConcealedFault } from '../support/concealed-fault.js';

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

/** The fault thrown for each kind, named by the grant's `scope` or the revoked `token`. */
const FAULTS = {
  unavailable: () => new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `token store at ${SECRET} is down` }),
  timeout: () => new TRPCError({ code: 'GATEWAY_TIMEOUT', message: `token store at ${SECRET} timed out` }),
  internal: () => new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: `token store at ${SECRET} failed` }),
  error: () => new Error(`token store at ${SECRET} failed`),
} as const;
type Fault = keyof typeof FAULTS;

const router = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }) })
    .grant('client_credentials', ({ form }) => {
      throw FAULTS[form.scope as Fault]();
    })
    .build(),
  revoke: revocationEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/revoke' } }), {
    authenticateClient: () => ({ id: null }),
    tokenTypes: ['refresh_token'],
    revoke: ({ form }) => {
      throw FAULTS[form.token as Fault]();
    },
  }),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

const CASES = [
  ['a grant handler', 'token', 'unavailable', 503, 'SERVICE_UNAVAILABLE'],
  ['a grant handler', 'token', 'timeout', 504, 'GATEWAY_TIMEOUT'],
  ['a grant handler', 'token', 'internal', 500, 'INTERNAL_SERVER_ERROR'],
  ['a grant handler', 'token', 'error', 500, 'INTERNAL_SERVER_ERROR'],
  ['revoke', 'revoke', 'unavailable', 503, 'SERVICE_UNAVAILABLE'],
  ['revoke', 'revoke', 'timeout', 504, 'GATEWAY_TIMEOUT'],
  ['revoke', 'revoke', 'internal', 500, 'INTERNAL_SERVER_ERROR'],
  ['revoke', 'revoke', 'error', 500, 'INTERNAL_SERVER_ERROR'],
] as const;

describe.each(FACES)('a fault of the server at the token or revocation endpoint on %s', (face) => {
  it.each(CASES)('%s (%s) throwing a fault of kind %s is a %i server_error, its message not sent', async (_name, procedure, fault, status, code) => {
    const running = faces[face];
    const reported = running.errors.length;
    const url = `${running.origin}${isRest(face) ? '/api' : '/trpc'}/${procedure}`;
    const fields = procedure === 'token' ? { grant_type: 'client_credentials', scope: fault } : { token: fault };
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fields) });
    // The fault itself, with its message, goes to onError and the logs.
    await expectConcealedFault(face, running, response, { status, code, reported });
  });
});
