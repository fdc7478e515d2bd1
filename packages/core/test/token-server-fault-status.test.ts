/**
 * docs/contract.md#token-responses (`server_error`): the RFC 6749 §5.2 answer of a fault of the
 * server keeps the status of a `TRPCError` of a 5xx code, as tRPC's own adapters answer it (a
 * revocation endpoint's 503 means "retry later; the token still exists", RFC 7009 §2.2.1), and is
 * a 500 for any other fault; its message is never sent.
 */
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { tokenErrorResponse } from '../src/token-endpoint/index.js';

const SERVER_ERROR = { error: 'server_error', error_description: 'The request could not be completed' };
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

describe('tokenErrorResponse of a fault of the server', () => {
  it.each([
    { code: 'INTERNAL_SERVER_ERROR', status: 500 },
    { code: 'NOT_IMPLEMENTED', status: 501 },
    { code: 'BAD_GATEWAY', status: 502 },
    { code: 'SERVICE_UNAVAILABLE', status: 503 },
    { code: 'GATEWAY_TIMEOUT', status: 504 },
  ] as const)('a TRPCError $code keeps its status $status, as server_error without its message', ({ code, status }) => {
    expect(tokenErrorResponse(new TRPCError({ code, message: 'db password is hunter2' }))).toEqual({ status, headers: NO_STORE, body: SERVER_ERROR });
  });

  it('anything else is a 500', () => {
    expect(tokenErrorResponse(new Error('db password is hunter2'))).toEqual({ status: 500, headers: NO_STORE, body: SERVER_ERROR });
    expect(tokenErrorResponse('a thrown string')).toEqual({ status: 500, headers: NO_STORE, body: SERVER_ERROR });
  });
});
