import { expect } from 'vitest';
import { captureOutput } from '../support/capture-output.js';
import { rawRequest, type RawRequest, type RawResponse } from '../support/raw-http.js';
import { serveOnEveryAdapter, type Adapter, type RunningServer } from '../support/serve.js';
import { oauth2OnError } from '../../src/index.js';
import { GOOD_LOGIN, SECRET_MARK, SECRETS, hostileRouter } from './hostile-app.js';

/** The body limit of the servers under test. */
export const MAX_BODY = 1024 * 1024;

/**
 * Serves the hostile app on both tRPC adapters with a body limit, logging every failure in
 * full (`console.error(error)`: message, stack and cause), as tRPC's documentation suggests.
 */
export const serveHostileApp = (): Promise<Record<Adapter, RunningServer>> =>
  serveOnEveryAdapter(hostileRouter, {
    maxBodySize: MAX_BODY,
    onError: oauth2OnError(({ error }) => console.error(error)),
  });

/** One hostile request and the refusal it must get. */
export interface HostileCase {
  name: string;
  request: RawRequest;
  status: number;
  /**
   * tRPC's error message: exact, or a part of it. `null` when the HTTP server refuses the request
   * before tRPC sees it: its status line (e.g. `431 Request Header Fields Too Large`) is the message.
   */
  message: string | { contains: string } | null;
  /** The `WWW-Authenticate` the refusal must carry (`null`: none). */
  challenge?: string | null;
}

const tRPCError = (response: RawResponse) =>
  (JSON.parse(response.body) as { error?: { message: string; data: { httpStatus: number } } }).error;

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

/** Sends the case, checks the refusal, that no secret was answered or logged, and that a good client still gets through. */
export async function expectRefused(server: RunningServer, hostile: HostileCase) {
  const origin = new URL(server.url).origin;
  const output = captureOutput();
  let response: RawResponse;
  try {
    response = await rawRequest(origin, hostile.request);
  } finally {
    output.restore();
  }
  expect(response.status, response.statusLine).toBe(hostile.status);
  const raw = `${response.statusLine}\n${JSON.stringify(response.headers)}\n${response.body}`;
  expect(raw).not.toContain(SECRET_MARK);
  expect(output.text()).not.toContain(SECRET_MARK);

  if (hostile.message === null) {
    expect(response.statusLine).toBe(`HTTP/1.1 ${hostile.status} ${STATUS_TEXT[hostile.status]}`);
  } else {
    const error = tRPCError(response);
    expect(error?.data.httpStatus).toBe(hostile.status);
    if (typeof hostile.message === 'string') expect(error?.message).toBe(hostile.message);
    else expect(error?.message).toContain(hostile.message.contains);
    // The failure was logged (so the capture above saw the server's output)…
    expect(output.text()).toContain(error?.message.split('\n')[0]);
  }
  if (hostile.challenge !== undefined) expect(response.headers['www-authenticate'] ?? null).toEqual(hostile.challenge && [hostile.challenge]);
  await expectStillServing(server);
}

/** A good token request and a good protected call both succeed. */
export async function expectStillServing(server: RunningServer) {
  const login = await fetch(`${server.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(GOOD_LOGIN),
  });
  expect(login.status).toBe(200);
  expect(await login.json()).toEqual({ result: { data: { access_token: SECRETS.token, token_type: 'Bearer' } } });
  const me = await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${SECRETS.token}` } });
  expect(await me.json()).toEqual({ result: { data: { user: 'alice', scopes: ['me'] } } });
}

/** A multipart/form-data body written by hand (so it can be wrong). */
export function multipart(boundary: string, parts: readonly (readonly [name: string, value: string, filename?: string])[]) {
  const body = parts
    .map(([name, value, filename]) => {
      const file = filename === undefined ? '' : `; filename="${filename}"\r\nContent-Type: application/octet-stream`;
      return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n${value}\r\n`;
    })
    .join('');
  return `${body}--${boundary}--\r\n`;
}

export type { RawRequest };
