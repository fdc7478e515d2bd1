import { expect } from 'vitest';
import { captureOutput } from '../../../../core/test/support/capture-output.js';
import { GOOD_LOGIN, SECRET_MARK, SECRETS } from './hostile-app.js';
import { rawRequest, type RawRequest, type RawResponse } from '../../../../core/test/support/raw-http.js';
import { FACES, isRest, type Face, type RunningFace } from './serve-faces.js';

/** The refusal a hostile request must get. */
export interface Refusal {
  status: number;
  /**
   * The error's text: exact, or a part of it. On REST faces the text is the message followed by
   * each validation issue's message; on tRPC faces, tRPC's message. `null` when the HTTP server
   * refuses the request before any handler sees it: the status line is then the message.
   */
  message: string | { contains: string } | null;
  /** The `WWW-Authenticate` the refusal must carry (`null`: none; left out: not checked). */
  challenge?: string | null;
}

/** One hostile request (its path without the face's prefix) and its refusal, which may differ by face. */
export interface HostileCase extends Refusal {
  name: string;
  request: RawRequest;
  /** Where a face answers with a different refusal. */
  byFace?: Partial<Record<Face, Partial<Refusal>>>;
}

/** One row per face: the case as that face must answer it. */
export interface FaceCase extends Refusal {
  face: Face;
  name: string;
  request: RawRequest;
}

export function perFace(cases: readonly HostileCase[], faces: readonly Face[] = FACES): FaceCase[] {
  return faces.flatMap((face) => cases.map(({ byFace, ...hostile }) => ({ ...hostile, ...byFace?.[face], face })));
}

interface ErrorBody {
  message?: string;
  issues?: { message: string }[];
  error?: { message: string; data: { httpStatus: number } };
}

const errorText = (face: Face, body: ErrorBody) =>
  isRest(face) ? [body.message, ...(body.issues ?? []).map((issue) => issue.message)].join('\n') : body.error?.message;

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

/** Sends the case, checks the refusal, that no secret was answered or logged, and that a good client still gets through. */
export async function expectRefused(server: RunningFace, hostile: FaceCase) {
  const output = captureOutput();
  let response: RawResponse;
  try {
    response = await rawRequest(server.origin, { ...hostile.request, path: server.prefix + hostile.request.path });
  } finally {
    output.restore();
  }
  expect(response.status, response.statusLine).toBe(hostile.status);
  expect(output.text()).not.toContain(SECRET_MARK);
  await expectStillServing(server);

  const raw = `${response.statusLine}\n${JSON.stringify(response.headers)}\n${response.body}`;
  expect(raw).not.toContain(SECRET_MARK);
  if (hostile.message === null) {
    expect(response.statusLine).toBe(`HTTP/1.1 ${hostile.status} ${STATUS_TEXT[hostile.status]}`);
  } else {
    const text = errorText(server.face, JSON.parse(response.body) as ErrorBody);
    if (typeof hostile.message === 'string') expect(text).toBe(hostile.message);
    else expect(text).toContain(hostile.message.contains);
    // The failure was logged, so the capture above did see the server's output.
    expect(output.text()).not.toBe('');
  }
  if (hostile.challenge !== undefined) expect(response.headers['www-authenticate'] ?? null).toEqual(hostile.challenge && [hostile.challenge]);
}

/** A good token request and a good protected call both succeed. */
export async function expectStillServing(server: RunningFace) {
  const login = await fetch(`${server.origin}${server.prefix}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(GOOD_LOGIN),
  });
  expect(login.status).toBe(200);
  const grant = isRest(server.face) ? await login.json() : ((await login.json()) as { result: { data: unknown } }).result.data;
  expect(grant).toEqual({ access_token: SECRETS.token, token_type: 'Bearer' });
  const me = await fetch(`${server.origin}${server.prefix}/me`, { headers: { authorization: `Bearer ${SECRETS.token}` } });
  const profile = isRest(server.face) ? await me.json() : ((await me.json()) as { result: { data: unknown } }).result.data;
  expect(profile).toEqual({ user: 'alice', scopes: ['me'] });
}

export { multipart } from '../../../../core/test/hostile/harness.js';
export type { RawRequest };
