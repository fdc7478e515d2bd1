import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { oauth2OnError } from '../../src/index.js';

const SECRET = 'pw-S3CR3T-4e1f0c';
/** The error tRPC makes of a body that is not JSON: the parser's message, the parser's error as cause. */
const parseError = (body: string) => {
  try {
    JSON.parse(body);
  } catch (cause) {
    return new TRPCError({ code: 'BAD_REQUEST', message: (cause as Error).message, cause });
  }
  throw new Error('the body parsed');
};
const seen = (error: TRPCError) => {
  const calls: TRPCError[] = [];
  oauth2OnError<{ error: TRPCError }>(({ error: e }) => calls.push(e))({ error });
  return calls;
};

describe('oauth2OnError', () => {
  it('replaces a JSON parser message that quotes the body, in the message, the stack and the cause', () => {
    const error = parseError(`{"username":"alice","password": ${SECRET}}`);
    expect(error.message).toContain('S3CR3T');
    const calls = seen(error);
    expect(calls).toEqual([error]);
    expect(error.message).toBe('The input is not valid JSON');
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.stack).not.toContain('S3CR3T');
    expect(error.stack).toMatch(/^TRPCError: The input is not valid JSON\n/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(error.cause?.message).toBe('The input is not valid JSON');
    expect(JSON.stringify(error.cause) + String(error.cause?.stack)).not.toContain('S3CR3T');
  });

  it('keeps a message of its own, and drops a cause that carries the body', () => {
    const cause = Object.assign(new SyntaxError(`Unexpected token in "${SECRET}"`), { body: `{"password": ${SECRET}}` });
    const error = new TRPCError({ code: 'PARSE_ERROR', message: 'Failed to parse request body', cause });
    seen(error);
    expect(error.message).toBe('Failed to parse request body');
    expect(error.cause).not.toBe(cause);
    expect(error.cause?.message).toBe('The input is not valid JSON');
    expect(Object.values(error.cause!)).not.toContain(`{"password": ${SECRET}}`);
  });

  it.each([
    { name: 'an error without a cause', error: new TRPCError({ code: 'UNAUTHORIZED', message: 'Not authenticated' }) },
    { name: 'an error caused by something else', error: new TRPCError({ code: 'BAD_REQUEST', message: 'boom', cause: new TypeError('boom') }) },
  ])('leaves $name alone and still calls the inner onError', ({ error }) => {
    const { message, stack, cause } = error;
    expect(seen(error)).toEqual([error]);
    expect(error).toMatchObject({ message, stack, cause });
  });

  it('works without an inner onError', () => {
    const error = parseError('{"a": nope}');
    expect(() => oauth2OnError()({ error })).not.toThrow();
    expect(error.message).toBe('The input is not valid JSON');
  });
});
