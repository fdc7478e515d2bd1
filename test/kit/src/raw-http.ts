import { connect } from 'node:net';

/**
 * An HTTP/1.1 request written byte for byte, so that what no client library would send (a header
 * twice, NUL or invalid UTF-8 in a header, a wrong Content-Length) really goes on the wire.
 */
export interface RawRequest {
  method?: string;
  /** Path and query, e.g. `/trpc/token`. */
  path: string;
  /** In order; a name may repeat. Strings are written as Latin-1, one byte per character. */
  headers?: readonly (readonly [string, string])[];
  /** Content-Length is added for a body unless a header already frames it (Content-Length or Transfer-Encoding). */
  body?: string | Uint8Array;
}

/** What came back. `status` is 0 when the server closed without answering. */
export interface RawResponse {
  status: number;
  /** The status line, e.g. `HTTP/1.1 413 Payload Too Large`. */
  statusLine: string;
  /** Lower-case names; a repeated header keeps every value. */
  headers: Record<string, string[]>;
  body: string;
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');

/** Serialises a {@link RawRequest}; `Connection: close` makes the server end the exchange. */
export function encodeRequest(request: RawRequest): Buffer {
  const headers = [['Host', '127.0.0.1'], ...(request.headers ?? [])];
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? Buffer.from(request.body) : Buffer.from(request.body);
  const framed = headers.some(([name]) => ['content-length', 'transfer-encoding'].includes(name!.toLowerCase()));
  if (body !== undefined && !framed) {
    headers.push(['Content-Length', String(body.length)]);
  }
  headers.push(['Connection', 'close']);
  const head = `${request.method ?? 'GET'} ${request.path} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([latin1(head), body ?? Buffer.alloc(0)]);
}

/** Decodes a chunked body (the standalone adapter streams its answers). */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseResponse(data: Buffer): RawResponse {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd === -1) return { status: 0, statusLine: '', headers: {}, body: data.toString('utf8') };
  const [statusLine = '', ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    (headers[line.slice(0, colon).trim().toLowerCase()] ??= []).push(line.slice(colon + 1).trim());
  }
  const rest = data.subarray(headEnd + 4);
  const body = headers['transfer-encoding']?.includes('chunked') ? dechunk(rest) : rest;
  return { status: Number(statusLine.split(' ')[1]), statusLine, headers, body: body.toString('utf8') };
}

/**
 * Sends `request` to `origin` (`http://127.0.0.1:port`) over a fresh connection and reads the
 * answer until the server closes it. A server may answer and close before the whole body is
 * sent (413): what it answered is still returned.
 */
export function rawRequest(origin: string, request: RawRequest | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  const bytes = Buffer.isBuffer(request) ? request : encodeRequest(request);
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    const done = () => resolve(parseResponse(Buffer.concat(received)));
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`No answer within ${timeoutMs} ms to ${bytes.subarray(0, 80).toString('latin1')}`));
    });
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('close', done);
    // EPIPE / ECONNRESET after an early answer: keep what was answered.
    socket.on('error', () => undefined);
  });
}
