/**
 * What a token or revocation endpoint's fault looks like on the wire, on every face
 * (docs/contract.md#token-responses, `server_error`): its status, `Cache-Control: no-store`, the
 * body without the fault's message (`server_error` over REST, tRPC's error shape over tRPC), and
 * the fault itself, with its message, handed to `onError`.
 */
import { expect } from 'vitest';
import { isRest, type Face, type RunningFace } from './faces.js';

/** The part of every test router's connection string a concealed answer never carries. */
export const SECRET = 'postgres://admin:hunter2@db';

/** Asserts that `response` is the concealed answer to a fault of `status` (`code` on tRPC's faces), and that `onError` got the fault after `reported` errors. */
export async function expectConcealedFault(face: Face, running: RunningFace, response: Response, { status, code, reported }: { status: number; code: string; reported: number }): Promise<void> {
  const text = await response.text();
  expect(response.status, text.slice(0, 200)).toBe(status);
  expect(response.headers.get('cache-control')).toBe('no-store');
  // Nor its stack, which tRPC's faces send in development.
  expect(text).not.toContain('hunter2');
  const body = JSON.parse(text);
  if (isRest(face)) {
    expect(body).toEqual({ error: 'server_error', error_description: 'The request could not be completed' });
  } else {
    expect(body.error).toMatchObject({ message: 'The request could not be completed', data: { code, httpStatus: status, oauth2: null } });
  }
  expect(running.errors.slice(reported).at(-1)?.cause?.message).toContain(SECRET);
}
