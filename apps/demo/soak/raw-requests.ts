import { connect } from 'node:net';
import type { SoakTally } from './tally.js';

/**
 * A request the load generator cannot send, written byte for byte on its own connection: a head
 * announcing a body far larger than what is then sent, until the server answers.
 *
 * @example
 * ```ts
 * const huge: RawSoakRequest = { name: 'declared 256 MiB', head: 'POST /api/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 268435456', expected: [413] };
 * ```
 */
export interface RawSoakRequest {
  name: string;
  /** The request line and headers, CRLF-separated, without the blank line. */
  head: string;
  /** Written right after the head (a chunk-size line, say). */
  bodyStart?: string;
  expected: readonly number[];
}

const MiB = 1024 * 1024;
const DECLARED = 256 * MiB;
// The body sent of a declared 256 MiB: well past every limit of the demo (16 KiB, 100 kB), so a
// server that answers once past its limit has answered long before; one that reads on is cut off.
const MAX_WRITTEN = 1 * MiB;
const CHUNK = Buffer.alloc(16 * 1024, 'x');

/**
 * The raw requests each soak instance gets in turn, one at a time, beside the load: bodies
 * declared as 256 MiB (`Content-Length`, or one chunk of that size) on every face, each to be
 * refused with a 413 once past the limit, without the server reading the rest
 * (docs/contract.md#body-limits).
 *
 * @example
 * ```ts
 * rawSoakRequests().length; // 7
 * ```
 */
export function rawSoakRequests(): RawSoakRequest[] {
  const declared = ([line, contentType]: readonly [string, string]): RawSoakRequest => ({
    name: `${line} (${contentType.split(';')[0]}), 256 MiB declared`,
    head: [`${line} HTTP/1.1`, 'Host: 127.0.0.1', `Content-Type: ${contentType}`, `Content-Length: ${DECLARED}`].join('\r\n'),
    expected: [413],
  });
  const chunked = (path: string): RawSoakRequest => ({
    name: `POST ${path} (application/json), one chunk of 256 MiB`,
    head: [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: chunked'].join('\r\n'),
    bodyStart: `${DECLARED.toString(16)}\r\n`,
    expected: [413],
  });
  return [
    ...(
      [
        ['POST /trpc/auth.token', 'application/json'],
        ['POST /trpc/auth.token', 'application/x-www-form-urlencoded'],
        ['POST /trpc/auth.token', 'multipart/form-data; boundary=b'],
        ['POST /api/conformance/form', 'application/json'],
        ['POST /api/token', 'application/json'],
      ] as const
    ).map(declared),
    chunked('/trpc/auth.token'),
    chunked('/api/conformance/form'),
  ];
}

/**
 * Sends one raw request to `url` and resolves with the status of the answer: writes the head,
 * then the body in 16 KiB chunks until the server answers or 1 MiB is written, and closes the
 * connection. Rejects when no answer came (the connection closed first, or `timeoutMs` passed).
 *
 * @example
 * ```ts
 * const status = await sendRaw(server.url, rawSoakRequests()[0], 10_000); // 413
 * ```
 */
export function sendRaw(url: string, request: RawSoakRequest, timeoutMs: number): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    let written = 0;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      if (status !== 0) resolve(status);
      else reject(error ?? new Error(`no answer after ${written} bytes of the body`));
    };
    const timer = setTimeout(() => settle(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (data) => {
      text += data.toString('latin1');
      if (text.includes('\r\n')) settle();
    });
    socket.on('close', () => settle());
    socket.on('error', (error) => settle(error));
    socket.write(`${request.head}\r\n\r\n${request.bodyStart ?? ''}`);
    const pump = () => {
      while (!settled && written < MAX_WRITTEN) {
        written += CHUNK.length;
        if (!socket.write(CHUNK)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

/**
 * Sends {@link rawSoakRequests} to `url` one after the other, round after round, until `stop`
 * is aborted, counting every answer (or its absence) in `tally` as the load's are counted.
 * One at a time: at most 1 MiB in flight.
 *
 * @example
 * ```ts
 * const raw = runRawRequests(server.url, tally, { stop: controller.signal, timeoutMs: 10_000 });
 * controller.abort();
 * await raw;
 * ```
 */
export async function runRawRequests(url: string, tally: SoakTally, { stop, timeoutMs }: { stop: AbortSignal; timeoutMs: number }): Promise<void> {
  const requests = rawSoakRequests();
  while (!stop.aborted) {
    for (const request of requests) {
      if (stop.aborted) return;
      try {
        tally.response(request.name, await sendRaw(url, request, timeoutMs), request.expected);
      } catch (error) {
        tally.error(request.name, error);
      }
    }
  }
}
