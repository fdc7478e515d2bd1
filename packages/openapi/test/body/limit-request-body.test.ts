import { getOAuth2Error } from '@trpc-oauth2/core';
import { TRPCError } from '@trpc/server';
import { refusal } from '../support/refusal.js';
import { describe, expect, it } from 'vitest';
import { limitRequestBody } from '../../src/body/limit.js';

const CHUNK = 1024;
const LIMIT = 10_000;

/** A body of `total` bytes (endless when `Infinity`) sent in chunks as they are asked for, counting what was taken. */
function countingBody(total: number) {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const size = Math.min(CHUNK, total - state.pulled);
      if (size === 0) return controller.close();
      state.pulled += size;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

const post = (body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1/trpc/token', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);


describe('limitRequestBody', () => {
  it('stops a streamed body at the limit: 413, and the rest is neither read nor cancelled', async () => {
    const { stream, state } = countingBody(Infinity);
    const limited = limitRequestBody(post(stream, { 'content-type': 'application/json' }), LIMIT);
    expect(refusal(limited)).toBeUndefined();
    const error = await limited.text().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('PAYLOAD_TOO_LARGE');
    expect((error as TRPCError).message).toBe(`Request body larger than ${LIMIT} bytes`);
    expect(getOAuth2Error(error)?.code).toBe('ERR_BODY_TOO_LARGE');
    // The chunk that passed the limit, and at most one the source queued ahead.
    expect(state.pulled).toBeLessThanOrEqual(LIMIT + 2 * CHUNK);
    expect(state.cancelled).toBe(false);
  });

  it.each([
    { name: 'exactly the limit', size: LIMIT },
    { name: 'one byte under it', size: LIMIT - 1 },
    { name: 'empty', size: 0 },
  ])('passes a streamed body of $name through byte for byte', async ({ size }) => {
    const { stream } = countingBody(size);
    const limited = limitRequestBody(post(stream), LIMIT);
    expect(await limited.text()).toBe('a'.repeat(size));
  });

  it('refuses a body whose Content-Length is over the limit before reading any of it', async () => {
    const { stream, state } = countingBody(Infinity);
    const limited = limitRequestBody(post(stream, { 'content-length': String(LIMIT + 1) }), LIMIT);
    expect(getOAuth2Error(refusal(limited))).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', status: 413 });
    expect(state.pulled).toBe(0);
  });

  it('keeps a multipart body as it is: same content type, read back as FormData', async () => {
    const form = new FormData();
    form.append('username', 'alice');
    form.append('password', 's3cret');
    const original = new Request('http://127.0.0.1/trpc/token', { method: 'POST', body: form });
    const limited = limitRequestBody(original, LIMIT);
    expect(limited.headers.get('content-type')).toBe(original.headers.get('content-type'));
    expect(limited.url).toBe(original.url);
    expect(limited.method).toBe('POST');
    expect([...(await limited.formData())]).toEqual([
      ['username', 'alice'],
      ['password', 's3cret'],
    ]);
  });

  it('keeps the Authorization header and every other header', () => {
    const limited = limitRequestBody(post('{}', { authorization: 'Bearer a, Bearer b', 'x-trace': '1' }), LIMIT);
    expect(limited.headers.get('authorization')).toBe('Bearer a, Bearer b');
    expect(limited.headers.get('x-trace')).toBe('1');
  });

  it('returns a request without a body as it is', () => {
    const request = new Request('http://127.0.0.1/trpc/me');
    expect(limitRequestBody(request, LIMIT)).toBe(request);
  });
});
