import { expect } from 'vitest';
import { captureOutput } from './capture-output.js';
import { rawRequest, type RawRequest, type RawResponse } from './raw-http.js';

export type { RawRequest } from './raw-http.js';

/**
 * The secrets hostile requests carry. Each holds `S3CR3T`, so that even a fragment of one in a
 * response or a log line is found.
 */
export const SECRETS = {
  password: 'pw-S3CR3T-4e1f0c',
  clientSecret: 'cs-S3CR3T-9a7b2d',
  token: 'tok-S3CR3T-77c2aa',
} as const;
export const SECRET_MARK = 'S3CR3T';

/** A well-formed token request body, as JSON. */
export const GOOD_LOGIN = {
  grant_type: 'password',
  username: 'alice',
  password: SECRETS.password,
  client_id: 'app',
  client_secret: SECRETS.clientSecret,
};

/** The body limit of the servers under test. */
export const MAX_BODY = 1024 * 1024;

/**
 * A server serving the hostile application (`POST /token` with `GOOD_LOGIN`, `GET /me` with
 * `SECRETS.token`), logging every failure in full.
 */
export interface HostileServer {
  readonly origin: string;
  /** The path prefix of its routes, e.g. `/trpc` or `/api`. */
  readonly prefix: string;
  /** Whether it answers as trpc-to-openapi (`{ message, issues }`) rather than tRPC (`{ error: { message, data } }`). */
  readonly rest: boolean;
}

/** The refusal a hostile request must get. */
export interface Refusal {
  status: number;
  /**
   * The error's text: exact, or a part of it. On REST servers the text is the message followed by
   * each validation issue's message; on tRPC servers, tRPC's message. `null` when the HTTP server
   * refuses the request before any handler sees it: the status line is then the message.
   */
  message: string | { contains: string } | null;
  /** The `WWW-Authenticate` the refusal must carry (`null`: none; left out: not checked). */
  challenge?: string | null;
}

/** One hostile request (its path without the server's prefix) and its refusal, which may differ by face. */
export interface HostileCase<TFace extends string = string> extends Refusal {
  name: string;
  request: RawRequest;
  /** Where a face answers with a different refusal. */
  byFace?: Partial<Record<TFace, Partial<Refusal>>>;
}

/** One row per face: the case as that face must answer it. */
export interface FaceCase<TFace extends string = string> extends Refusal {
  face: TFace;
  name: string;
  request: RawRequest;
}

export function perFace<const TFace extends string>(cases: readonly HostileCase<TFace>[], faces: readonly TFace[]): FaceCase<TFace>[] {
  return faces.flatMap((face) => cases.map(({ byFace, ...hostile }) => ({ ...hostile, ...byFace?.[face], face })));
}

interface ErrorBody {
  message?: string;
  issues?: { message: string }[];
  error?: { message: string; data: { httpStatus: number } };
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

/** Sends the case, checks the refusal, that no secret was answered or logged, and that a good client still gets through. */
export async function expectRefused(server: HostileServer, hostile: Refusal & { request: RawRequest }) {
  const output = captureOutput();
  let response: RawResponse;
  try {
    response = await rawRequest(server.origin, { ...hostile.request, path: server.prefix + hostile.request.path });
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
    const body = JSON.parse(response.body) as ErrorBody;
    const text = server.rest ? [body.message, ...(body.issues ?? []).map((issue) => issue.message)].join('\n') : body.error?.message;
    if (!server.rest) expect(body.error?.data.httpStatus).toBe(hostile.status);
    if (typeof hostile.message === 'string') expect(text).toBe(hostile.message);
    else expect(text).toContain(hostile.message.contains);
    // The failure was logged, so the capture above did see the server's output. tRPC logs the
    // message it answers; trpc-to-openapi answers `Input validation failed` for what it logs in full.
    if (server.rest) expect(output.text()).not.toBe('');
    else expect(output.text()).toContain(text?.split('\n')[0]);
  }
  if (hostile.challenge !== undefined) expect(response.headers['www-authenticate'] ?? null).toEqual(hostile.challenge && [hostile.challenge]);
  await expectStillServing(server);
}

/** A good token request and a good protected call both succeed. */
export async function expectStillServing(server: HostileServer) {
  // tRPC wraps what a procedure answers; trpc-to-openapi answers it as it is.
  const answered = (data: unknown) => (server.rest ? data : { result: { data } });
  const login = await fetch(`${server.origin}${server.prefix}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(GOOD_LOGIN),
  });
  expect(login.status).toBe(200);
  expect(await login.json()).toEqual(answered({ access_token: SECRETS.token, token_type: 'Bearer' }));
  const me = await fetch(`${server.origin}${server.prefix}/me`, { headers: { authorization: `Bearer ${SECRETS.token}` } });
  expect(await me.json()).toEqual(answered({ user: 'alice', scopes: ['me'] }));
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
