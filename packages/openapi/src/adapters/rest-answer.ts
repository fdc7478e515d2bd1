/**
 * Where a REST answer is written: trpc-to-openapi's own, or, for a token endpoint's error, the
 * RFC 6749 §5.2 answer the hooks left on the request.
 * @module
 */
import type { ServerResponse } from 'node:http';
import { stateOf } from '../utils/request-state.js';

/** What trpc-to-openapi's core writes an answer to: a status, headers, then the whole body at once. */
export interface AnswerSink {
  statusCode: number;
  setHeader(name: string, value: string | readonly string[]): unknown;
  end(text?: string): unknown;
}

/**
 * `sink` as trpc-to-openapi's core writes to it, but for a token endpoint's error (left in the
 * request's record by the hooks' `onError`): that is sent as RFC 6749 §5.2 answers it, with its
 * status, no-store and the error's own headers, in place of trpc-to-openapi's body
 * (`docs/contract.md#token-responses`).
 *
 * @example
 * ```ts
 * await handle(request, answering(request, res));
 * ```
 */
export function answering<$Sink extends AnswerSink>(request: Request, sink: $Sink): $Sink {
  return new Answering(request, sink) as AnswerSink as $Sink;
}

/**
 * {@link answering}'s sink. A class, not an object literal with a getter and a setter: V8 gives
 * each such literal a hidden class of its own, made in the old generation, so one per request
 * would fill it with garbage only a full collection frees.
 */
class Answering implements AnswerSink {
  readonly #request: Request;
  readonly #sink: AnswerSink;

  constructor(request: Request, sink: AnswerSink) {
    this.#request = request;
    this.#sink = sink;
  }

  get statusCode(): number {
    return this.#sink.statusCode;
  }

  set statusCode(status: number) {
    this.#sink.statusCode = status;
  }

  setHeader(name: string, value: string | readonly string[]): unknown {
    return this.#sink.setHeader(name, value);
  }

  end(text?: string): unknown {
    const sink = this.#sink;
    const tokenError = stateOf(this.#request)?.tokenError;
    if (tokenError === undefined) return sink.end(text);
    sink.statusCode = tokenError.status;
    sink.setHeader('content-type', 'application/json');
    for (const [name, value] of Object.entries(tokenError.headers)) sink.setHeader(name, value);
    return sink.end(JSON.stringify(tokenError.body));
  }
}

/**
 * The Node response trpc-to-openapi's core writes `request`'s answer to (see {@link answering}).
 *
 * @example
 * ```ts
 * await handle(request, nodeAnswer(request, res));
 * ```
 */
export const nodeAnswer = (request: Request, res: ServerResponse): ServerResponse => answering(request, res as AnswerSink) as ServerResponse;

/**
 * A sink for trpc-to-openapi's core that makes `request`'s answer a Fetch `Response` (see
 * {@link answering}): `response` settles when the answer is written.
 *
 * @example
 * ```ts
 * const { sink, response } = fetchAnswer(request);
 * await handle(request, sink);
 * return response;
 * ```
 */
export function fetchAnswer(request: Request): { sink: AnswerSink; response: Promise<Response> } {
  const collecting = new Collecting();
  return { sink: answering(request, collecting), response: collecting.response };
}

/** What {@link fetchAnswer} collects an answer in (a class for the reason {@link Answering} is). */
class Collecting implements AnswerSink {
  statusCode = 200;
  readonly #headers = new Headers();
  #settle!: (response: Response) => void;
  readonly response = new Promise<Response>((resolve) => (this.#settle = resolve));

  setHeader(name: string, value: string | readonly string[]): void {
    if (typeof value === 'string') this.#headers.set(name, value);
    else {
      this.#headers.delete(name);
      for (const item of value) this.#headers.append(name, item);
    }
  }

  end(text?: string): void {
    this.#settle(new Response(text, { status: this.statusCode, headers: this.#headers }));
  }
}
