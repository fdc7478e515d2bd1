import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, call, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { httpRouter } from '../support/http-router.js';

// The servers' onError is a plain function (see support/faces.ts): the handlers wrap it themselves.
let servers: Record<Face, RunningFace>;
beforeAll(async () => {
  servers = await serveFaces(httpRouter, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const SECRET = 'hunter2-S3CR3T';
// Each one makes the JSON parser's message quote the secret ("Unexpected token 'h', ..."hunter2"...").
const MALFORMED = [
  { name: 'an unquoted password', body: `{"username":"alice","password": ${SECRET}}` },
  { name: 'a body cut short after the secret', body: `{"username":"alice","password":"${SECRET}` },
  { name: 'a form sent as JSON', body: `username=alice&password=${SECRET}` },
];
/** What each face answers a malformed JSON body: trpc-to-openapi's PARSE_ERROR on REST, tRPC's own error (its message made safe) on tRPC. */
const expectedError = (face: Face) =>
  isRest(face)
    ? { message: 'Failed to parse request body', code: 'PARSE_ERROR' }
    : { message: 'The input is not valid JSON', code: 'BAD_REQUEST' };

describe('onError is wrapped with oauth2OnError on every face', () => {
  const cases = FACES.flatMap((face) => MALFORMED.map((malformed) => ({ face, ...malformed })));

  it.each(cases)('$face: $name never reaches the response nor onError', async ({ face, body }) => {
    const server = servers[face];
    const before = server.errors.length;
    const result = await call(server, 'token', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(result.status).toBe(400);
    expect(result.error).toEqual(expectedError(face));
    expect(result.text).not.toContain('S3CR3T');

    const received = server.errors.slice(before);
    expect(received).toHaveLength(1);
    const [error] = received;
    expect(error!.message).toBe(expectedError(face).message);
    // What a logger prints of it: message, stack and cause (with its own stack).
    const logged = inspect(error, { depth: 10 });
    expect(logged).toContain('The input is not valid JSON');
    expect(logged).not.toContain('S3CR3T');
  });
});
