/**
 * An open-loop load: requests sent on a fixed schedule, whatever the server's answers, each
 * request's latency counted from the moment it was due. wrk's closed loop (each connection sends
 * its next request when the last is answered) loads every server as hard as it can go, so two
 * servers of different capacities are never at the same load, and a request held back by a slow
 * answer is never counted as late (coordinated omission). Here both servers get the same
 * requests per second, and a request that waits for a free connection waits on the clock.
 * @module
 */
import { connect, type Socket } from 'node:net';
import type { LoadRequest, LoadResult } from './load-generator.js';

/**
 * An open-loop run: a {@link LoadRequest} sent `rate` times a second; `connections` is how many
 * keep-alive connections carry it (a request due while all are busy waits for the first free one).
 *
 * @example
 * ```ts
 * const request: OpenLoopRequest = { url: 'http://127.0.0.1:4000/items', method: 'GET', headers: {}, seconds: 4, connections: 16, rate: 2000 };
 * ```
 */
export interface OpenLoopRequest extends LoadRequest {
  /** Requests per second, spread evenly. */
  rate: number;
}

/** The head of an answer longer than this is not an answer (the bench's routes send a few hundred bytes). */
const MAX_HEAD = 16 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n');

/** The request's bytes, written once and sent as they are on every connection. */
function wireRequest(request: LoadRequest): Buffer {
  const url = new URL(request.url);
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return body === undefined ? head : Buffer.concat([head, body]);
}

/**
 * Where one answer ends in `data`: the index past its last byte, `0` when more is needed, `-1`
 * when it is not an HTTP/1.1 answer this reader takes (no length, or a head too long).
 */
function answerEnd(data: Buffer): number {
  const head = data.indexOf(HEAD_END);
  if (head === -1) return data.length > MAX_HEAD ? -1 : 0;
  const text = data.toString('latin1', 0, head).toLowerCase();
  const length = /\r\ncontent-length: *(\d+)/.exec(text);
  if (length !== null) {
    const end = head + 4 + Number(length[1]);
    return data.length >= end ? end : 0;
  }
  if (/\r\ntransfer-encoding: *chunked/.test(text)) {
    // The bench's answers carry no trailers: the last chunk ends the answer.
    const last = data.indexOf(LAST_CHUNK, head + 2);
    return last === -1 ? 0 : last + LAST_CHUNK.length;
  }
  return -1;
}

/** Percentile `p` (0–100) of sorted `values`, nearest rank. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Sends `request` `rate` times a second for `seconds` and waits for the answers (at most 5 s past
 * the schedule; an answer still missing then counts as an error). Latency is from each request's
 * due time to the last byte of its answer, in microseconds. Runs its own busy schedule (a
 * `setImmediate` loop, for sub-millisecond spacing), so it is meant for a process of its own.
 *
 * @example
 * ```ts
 * const result = await runOpenLoop({ url, method: 'GET', headers: {}, seconds: 4, connections: 16, rate: 2000 });
 * result.p99Us;
 * ```
 */
export function runOpenLoop(request: OpenLoopRequest): Promise<LoadResult> {
  if (!(request.rate > 0) || !(request.seconds > 0) || !(request.connections >= 1)) {
    return Promise.reject(new TypeError('rate, seconds and connections must be positive'));
  }
  const url = new URL(request.url);
  const bytes = wireRequest(request);
  const total = Math.max(1, Math.round(request.rate * request.seconds));
  const interval = 1e9 / request.rate;
  const latencies = new Float64Array(total);
  const now = () => Number(process.hrtime.bigint());

  return new Promise((resolve) => {
    let answered = 0;
    let non2xx = 0;
    let errors = 0;
    let sent = 0;
    let finished = false;
    /** Due times of requests waiting for a free connection, oldest first. */
    const backlog: number[] = [];
    let backlogHead = 0;
    const idle: Socket[] = [];
    const due = new Map<Socket, number>();
    const buffered = new Map<Socket, Buffer>();
    const sockets: Socket[] = [];
    let start = 0;
    let lastAnswer = 0;

    const send = (socket: Socket, at: number) => {
      due.set(socket, at);
      socket.write(bytes);
    };
    const free = (socket: Socket) => {
      if (backlogHead < backlog.length) send(socket, backlog[backlogHead++]!);
      else idle.push(socket);
      settleIfDone();
    };
    const settleIfDone = () => {
      if (finished || sent < total || answered + errors < total) return;
      finish();
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      for (const socket of sockets) socket.destroy();
      const missing = total - answered - errors;
      const sorted = latencies.subarray(0, answered).sort();
      const seconds = Math.max(1e-9, (lastAnswer - start) / 1e9);
      resolve({
        requests: answered,
        seconds,
        rps: answered / seconds,
        p50Us: percentile(sorted, 50) / 1000,
        p99Us: percentile(sorted, 99) / 1000,
        non2xx,
        errors: errors + missing,
      });
    };

    const open = (): Socket => {
      const socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
      socket.on('data', (chunk: Buffer) => {
        const data = buffered.has(socket) ? Buffer.concat([buffered.get(socket)!, chunk]) : chunk;
        const end = answerEnd(data);
        if (end === 0) {
          buffered.set(socket, data);
          return;
        }
        buffered.delete(socket);
        const at = due.get(socket);
        due.delete(socket);
        if (end === -1 || at === undefined) {
          errors++;
          socket.destroy();
          return;
        }
        const status = Number(data.toString('latin1', 9, 12));
        lastAnswer = now();
        latencies[answered++] = lastAnswer - at;
        if (!(status >= 200 && status < 300)) non2xx++;
        free(socket);
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        // A request in flight on a closed connection is lost; the connection is replaced.
        if (due.has(socket)) {
          due.delete(socket);
          errors++;
        }
        const at = idle.indexOf(socket);
        if (at !== -1) idle.splice(at, 1);
        // A server that refuses connections before the run starts ends it: nothing was sent.
        if (!finished && start === 0) finish();
        if (!finished) {
          const next = open();
          sockets[sockets.indexOf(socket)] = next;
          next.once('connect', () => free(next));
          settleIfDone();
        }
      });
      return socket;
    };

    for (let i = 0; i < request.connections; i++) sockets.push(open());
    // Connecting gets 10 s; once the schedule starts, its answers get 5 s past its end.
    let deadline = setTimeout(finish, 10_000);
    let connected = 0;
    for (const socket of sockets) {
      socket.once('connect', () => {
        idle.push(socket);
        if (++connected === sockets.length) begin();
      });
    }

    const begin = () => {
      clearTimeout(deadline);
      deadline = setTimeout(finish, (request.seconds + 5) * 1000);
      start = now();
      const pump = () => {
        if (finished) return;
        const t = now();
        while (sent < total && start + sent * interval <= t) {
          const at = start + sent * interval;
          sent++;
          const socket = idle.pop();
          if (socket !== undefined) send(socket, at);
          else backlog.push(at);
        }
        if (sent < total) setImmediate(pump);
        else settleIfDone();
      };
      pump();
    };
  });
}
