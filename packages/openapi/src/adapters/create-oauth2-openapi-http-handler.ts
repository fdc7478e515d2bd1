import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createOpenApiNodeHttpHandler,
  type CreateOpenApiHttpHandlerOptions,
  type OpenApiNextFunction,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import { bodyLimit } from '../body/limit.js';
import { REST_READS, applyBodyPolicy } from '../body/policy.js';
import { incomingRequest } from './node-request.js';
import { withOAuth2Hooks } from './oauth2-hooks.js';
import { openTokenErrorSlot, restBodyLimit, tokenEndpoints, tokenErrorAnswer } from './token-endpoints.js';

/**
 * `res` as trpc-to-openapi writes to it, but for a token endpoint's error (recorded by the
 * hooks' `onError`): that is sent as RFC 6749 §5.2's answer in place of trpc-to-openapi's body.
 */
function tokenErrorWriter(res: ServerResponse, slot: ReturnType<typeof openTokenErrorSlot>): ServerResponse {
  return new Proxy(res, {
    get: (target, key) => {
      if (key === 'end') {
        return (...args: unknown[]) => {
          if (slot.response === undefined) return (target.end as (...a: unknown[]) => ServerResponse)(...args);
          const { status, headers, text } = tokenErrorAnswer(slot.response);
          target.statusCode = status;
          for (const [name, value] of Object.entries(headers)) target.setHeader(name, value);
          return target.end(text);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set: (target, key, value) => Reflect.set(target, key, value, target),
  });
}

/**
 * The options of {@link createOAuth2OpenApiHttpHandler}: trpc-to-openapi's `createOpenApiHttpHandler` options.
 *
 * @example
 * ```ts
 * const options: CreateOAuth2OpenApiHttpHandlerOptions<typeof appRouter> = { router: appRouter, maxBodySize: 10_000 };
 * ```
 */
export type CreateOAuth2OpenApiHttpHandlerOptions<TRouter extends OpenApiRouter> = CreateOpenApiHttpHandlerOptions<TRouter>;

const answerBadUrl = (res: ServerResponse) => {
  res.statusCode = 400;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ message: 'Invalid URL', code: 'BAD_REQUEST' }));
};

/**
 * trpc-to-openapi's Node handler (`createOpenApiHttpHandler`, for `http.createServer`) with the
 * same body policy, hooks and answers as {@link createOAuth2OpenApiFetchHandler}: form bodies
 * served, every body within `maxBodySize` (100 000 bytes when unset), malformed JSON a 400
 * `PARSE_ERROR` (never a 500), challenge headers written, `onError` wrapped with
 * `oauth2OnError`. An `Authorization` header sent more than once reads as all its values joined
 * by `", "`, as on the other faces (Node's `req.headers` keeps only the first). `req` itself is
 * never changed: trpc-to-openapi is handed a Fetch `Request` built from it, as its own Node
 * handler does. `next`, when given, is called for paths that are not REST routes. A token or
 * revocation endpoint (core's `tokenEndpoint`, `revocationEndpoint`) reads at most its own
 * `maxBodySize`, and answers its errors as RFC 6749 §5.2's `{ error, error_description }` with
 * `Cache-Control: no-store` (`docs/contract.md#token-responses`).
 *
 * @example
 * ```ts
 * const rest = createOAuth2OpenApiHttpHandler({ router: appRouter, createContext: ({ req }) => ({ req }) });
 * http.createServer((req, res) => rest(req, res)).listen(3000);
 * ```
 */
export function createOAuth2OpenApiHttpHandler<$Router extends OpenApiRouter>(
  opts: CreateOAuth2OpenApiHttpHandlerOptions<$Router>,
): (req: IncomingMessage, res: ServerResponse, next?: OpenApiNextFunction) => Promise<void> {
  const handle = createOpenApiNodeHttpHandler(withOAuth2Hooks(opts));
  const endpoints = tokenEndpoints(opts.router);
  const limit = bodyLimit(opts.maxBodySize);
  return async (req, res, next) => {
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const policy = { reads: REST_READS, maxBodySize: restBodyLimit(endpoints, req.method ?? 'GET', pathname, limit) };
    const request = incomingRequest(req, res, policy.maxBodySize);
    if (request === undefined) return answerBadUrl(res);
    const decided = await applyBodyPolicy(request, policy);
    const slot = openTokenErrorSlot(decided);
    await handle(decided as never, tokenErrorWriter(res, slot), next);
  };
}
