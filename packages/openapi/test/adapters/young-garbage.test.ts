import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MB, expectSharedClass, leftOutsideYoung } from '@trpc-oauth2/test-kit';
import { initTRPC } from '@trpc/server';
import { incomingMessageToRequest } from '@trpc/server/adapters/node-http';
import { incomingRequest } from '../../src/adapters/node-request.js';
import { nodeContextOptions } from '../../src/adapters/create-oauth2-openapi-http-handler.js';
import { withOAuth2Hooks } from '../../src/adapters/oauth2-hooks.js';
import { answering, type AnswerSink } from '../../src/adapters/rest-answer.js';
import { requestWithBody } from '../../src/body/requests.js';
import { requestState, stateOf } from '../../src/utils/request-state.js';

// What a handler makes per request must die in the young generation. Two ways it did not: a
// WeakMap keyed by the request (its table is in the old generation, and only a full collection
// clears its dead entries), and objects V8 gives a hidden class of their own, made outside the
// young generation: a literal with a getter and a setter, and a spread followed by keys it lacks.
// Each case is measured against its control, which does what the code used to do: the control
// shows that the measure sees the garbage, so the check on the code can fail.

describe('per-request objects die young', () => {
  it("a request's record lives on the request and leaves nothing outside the young generation (a WeakMap's table grows there)", async () => {
    const records = new WeakMap<object, unknown>();
    const control = await leftOutsideYoung((i) => records.set({}, { payload: new Array(64).fill(i) }));
    const ours = await leftOutsideYoung((i) => {
      const request = {};
      requestState(request).refusal = { payload: new Array(64).fill(i) } as never;
    });
    expect(control).toBeGreaterThan(MB);
    expect(ours).toBeLessThan(control / 5);
  });

  it("the REST answer's sink shares one hidden class (a literal with a getter and a setter gets its own)", async () => {
    const request = new Request('http://localhost/items');
    const sink: AnswerSink = { statusCode: 200, setHeader: () => undefined, end: () => undefined };
    const control = await leftOutsideYoung(() => {
      const literal = {
        get statusCode() {
          return sink.statusCode;
        },
        set statusCode(status) {
          sink.statusCode = status;
        },
      };
      literal.statusCode = 201;
    });
    const ours = await leftOutsideYoung(() => {
      answering(request, sink).statusCode = 201;
    });
    expect(control).toBeGreaterThan(MB);
    expect(ours).toBeLessThan(control / 5);
  });

  it("a fetch face's options with the OAuth2 hooks share one hidden class (a spread followed by added keys gets its own)", async () => {
    const t = initTRPC.create();
    const router = t.router({});
    const req = new Request('http://localhost/trpc/items');
    const createContext = () => ({});
    const hook = () => undefined;
    // What a fetch face is called with on each request: no responseMeta nor onError of its own.
    const control = await leftOutsideYoung(() => {
      const opts = { endpoint: '/trpc', router, req, createContext };
      return { ...{ ...opts, createContext: hook, responseMeta: hook, onError: hook }, req, maxBatchSize: 10 };
    });
    const ours = await leftOutsideYoung(() => {
      const opts = { endpoint: '/trpc', router, req, createContext };
      return Object.assign(withOAuth2Hooks(opts), { req, maxBatchSize: 10 });
    });
    expectSharedClass(control, ours);
  });

  it("the REST Node face's createContext options share one hidden class", async () => {
    const request = new Request('http://localhost/items');
    requestState(request).node = { req: {} as never, res: {} as never };
    const info = {} as never;
    const control = await leftOutsideYoung(() => {
      const o = { req: request, res: {}, info };
      return { ...o, res: {}, incoming: {} };
    });
    const ours = await leftOutsideYoung(() => nodeContextOptions({ req: request, info }));
    expectSharedClass(control, ours);
  });

  it("a Node face's GET request carries the client's signal without following it (tRPC's adapter's request follows it)", async () => {
    const socket = new Socket();
    const node = (): [IncomingMessage, ServerResponse] => {
      const req = new IncomingMessage(socket);
      req.method = 'GET';
      req.url = '/trpc/items';
      req.headers = { host: 'localhost', authorization: 'Bearer abc' };
      req.rawHeaders = ['Host', 'localhost', 'Authorization', 'Bearer abc'];
      return [req, new ServerResponse(req)];
    };
    const n = 5_000;
    // The same Node objects, and a request beside a signal it does not follow: what a GET leaves
    // anyway (on Node 20 every AbortSignal leaves a little, BENCHMARKS.md#what-promotes-a-request).
    const bare = await leftOutsideYoung(() => {
      node();
      return [new Request('http://localhost/trpc/items', { headers: { host: 'localhost', authorization: 'Bearer abc' } }), new AbortController().signal];
    }, n);
    const control = await leftOutsideYoung(() => incomingMessageToRequest(...node(), { maxBodySize: null }), n);
    const ours = await leftOutsideYoung(() => incomingRequest(...node(), null), n);
    expect(control - bare).toBeGreaterThan(MB);
    expect(ours - bare).toBeLessThan((control - bare) / 5);
    const [req, res] = node();
    const request = incomingRequest(req, res, null)!;
    expect(request.signal.aborted).toBe(false);
    res.emit('close');
    expect(request.signal.aborted).toBe(true);
  });

  it("a request built with another body keeps its parent's signal without following it (passing it to new Request does)", async () => {
    const parent = () => new Request('http://localhost/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const n = 5_000;
    const init = (request: Request) => ({ method: request.method, headers: request.headers, body: '{"a":1}', duplex: 'half' }) as RequestInit;
    // The same two requests with nothing following anything: what a request with a body leaves anyway.
    const bare = await leftOutsideYoung(() => new Request('http://localhost/token', init(parent())), n);
    const control = await leftOutsideYoung(() => {
      const request = parent();
      return new Request(request.url, { ...init(request), signal: request.signal });
    }, n);
    const ours = await leftOutsideYoung(() => requestWithBody(parent(), '{"a":1}'), n);
    expect(control - bare).toBeGreaterThan(MB);
    expect(ours - bare).toBeLessThan((control - bare) / 5);
    const request = parent();
    expect(requestWithBody(request, '{}').signal).toBe(request.signal);
  });

  it('keeps the record with its request, apart from any other request, and out of what the request shows', () => {
    const request = new Request('http://localhost/items');
    const other = new Request('http://localhost/items');
    requestState(request).refusal = 'refused' as never;
    expect(stateOf(request)).toBe(requestState(request));
    expect(stateOf(other)).toBeUndefined();
    expect(Object.keys(request)).toEqual([]);
    expect(JSON.stringify(stateOf(request))).toBe('{"refusal":"refused"}');
  });

  it('keeps the record of a request that takes no new property, apart from any other', () => {
    const frozen = Object.freeze(new Request('http://localhost/items'));
    const other = Object.freeze(new Request('http://localhost/items'));
    requestState(frozen).refusal = 'refused' as never;
    expect(stateOf(frozen)).toBe(requestState(frozen));
    expect(stateOf(frozen)?.refusal).toBe('refused');
    expect(stateOf(other)).toBeUndefined();
  });
});
