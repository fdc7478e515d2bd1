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
  const answer: AnswerSink = {
    get statusCode() {
      return sink.statusCode;
    },
    set statusCode(status) {
      sink.statusCode = status;
    },
    setHeader: (name, value) => sink.setHeader(name, value),
    end: (text) => {
      const tokenError = stateOf(request)?.tokenError;
      if (tokenError === undefined) return sink.end(text);
      sink.statusCode = tokenError.status;
      sink.setHeader('content-type', 'application/json');
      for (const [name, value] of Object.entries(tokenError.headers)) sink.setHeader(name, value);
      return sink.end(JSON.stringify(tokenError.body));
    },
  };
  return answer as $Sink;
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
  const headers = new Headers();
  let status = 200;
  let settle!: (response: Response) => void;
  const response = new Promise<Response>((resolve) => (settle = resolve));
  const collecting: AnswerSink = {
    get statusCode() {
      return status;
    },
    set statusCode(code) {
      status = code;
    },
    setHeader: (name, value) => {
      if (typeof value === 'string') headers.set(name, value);
      else {
        headers.delete(name);
        for (const item of value) headers.append(name, item);
      }
    },
    end: (text) => settle(new Response(text, { status, headers })),
  };
  return { sink: answering(request, collecting), response };
}
