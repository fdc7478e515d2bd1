/**
 * Turns a body the policy refused, which runs before the adapter, into an error thrown from
 * `createContext`, so the adapter answers it through its own error path.
 * @module
 */
import { getTokenEndpoint } from '@trpc-oauth2/core/protocol';
import { stateOf } from '../utils/request-state.js';
import { tokenBodyRefusal } from './errors.js';

/** What tRPC's adapters hand `createContext` of the calls a request makes (trpc-to-openapi names none). */
interface CallsInfo {
  info?: { calls?: readonly { procedure?: unknown }[] } | undefined;
}

/** Whether a request calls a token or revocation endpoint (a batch: any of its calls). */
const callsTokenEndpoint = (opts: CallsInfo) => opts.info?.calls?.some((call) => getTokenEndpoint(call.procedure) !== undefined) ?? false;

/**
 * Wraps an adapter's `createContext` so that a request whose body this package refused (too
 * large, malformed, a file where text is expected) fails there, with that error, before any
 * procedure runs. The adapter then answers it as any other error: its status, `errorFormatter`,
 * `onError` and `responseMeta` apply. When the request calls a token or revocation endpoint (a
 * batch: any of its calls, as tRPC's `info` names them), the refusal is RFC 6749 §5.2's
 * `invalid_request` (see `tokenBodyRefusal`), so `data.oauth2` carries the `error` the REST faces
 * send. The handlers of this package do it for you; use it when
 * wiring `rewriteFormRequest` into another adapter, one that hands `createContext` the very request
 * it was given (as tRPC's adapters do): the refusal is found by that object. Without a
 * `createContext`, the context is the request alone, `{ req }`, where the readers read the headers
 * (tRPC's adapters would pass `undefined`, and a reader can read nothing there). See
 * `docs/contract.md#body-limits`.
 *
 * @example
 * ```ts
 * fetchRequestHandler({ endpoint: '/trpc', router, req: await rewriteFormRequest(req), createContext: refuseBodyErrors(createContext) });
 * ```
 */
export function refuseBodyErrors<$Options extends { req: unknown }, $Context>(
  createContext: (opts: $Options) => $Context,
): (opts: $Options) => $Context;
export function refuseBodyErrors(createContext?: undefined): <$Request>(opts: { req: $Request }) => { req: $Request };
export function refuseBodyErrors(createContext?: (opts: { req: unknown }) => unknown) {
  return (opts: { req: unknown }) => {
    const error = stateOf(opts.req)?.refusal;
    // A token or revocation call's refused body is RFC 6749 §5.2's `invalid_request`, as on REST.
    if (error !== undefined) throw callsTokenEndpoint(opts as CallsInfo) ? tokenBodyRefusal(error) : error;
    // Without createContext, the request alone: what the readers read the headers of.
    return createContext ? createContext(opts) : { req: opts.req };
  };
}
