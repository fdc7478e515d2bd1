/**
 * Where a REST answer is written: trpc-to-openapi's own, or, for a token endpoint's error, the
 * RFC 6749 §5.2 answer the hooks left on the request.
 * @module
 */
import { stateOf } from '../utils/request-state.js';

/**
 * The header name under which the shared core hands `responseMeta`'s arguments to the sink
 * (rest-core.ts): no header can have it (a space is not a token character), and only
 * {@link answering}'s sink receives it.
 */
export const RESPONSE_META = ' trpc-oauth2 response meta';

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
    if (name !== RESPONSE_META) return this.#sink.setHeader(name, value);
    // The core's responseMeta arguments, handed on in the step that sends the answer: this
    // request's own responseMeta decides, as the core would have (its status over the core's).
    const meta = stateOf(this.#request)?.hooks?.responseMeta(value as never);
    const sink = this.#sink;
    sink.statusCode = meta?.status ?? sink.statusCode;
    for (const [header, item] of Object.entries(meta?.headers ?? {})) if (item !== undefined) sink.setHeader(header, item as string);
    return undefined;
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
 * A sink for trpc-to-openapi's core that makes an answer a Fetch `Response`: `response` settles
 * when the answer is written.
 *
 * @example
 * ```ts
 * const { sink, response } = collectAnswer();
 * await handle(request, sink);
 * return response;
 * ```
 */
export function collectAnswer(): { sink: AnswerSink; response: Promise<Response> } {
  const collecting = new Collecting();
  return { sink: collecting, response: collecting.response };
}

/** What {@link collectAnswer} collects an answer in (a class for the reason {@link Answering} is). */
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
