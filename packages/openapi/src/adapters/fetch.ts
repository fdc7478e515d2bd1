/**
 * `@trpc-oauth2/openapi/adapters/fetch`: the handlers for Fetch runtimes (Node's `fetch`
 * servers, Deno, Bun, edge functions), beside `@trpc/server/adapters/fetch`. Nothing here
 * reaches a Node API (`node:*`, `Buffer`).
 * @module
 */
export {
  createOAuth2OpenApiFetchHandler,
  type CreateOAuth2OpenApiFetchHandlerOptions,
} from './create-oauth2-openapi-fetch-handler.js';
export { oauth2FetchRequestHandler, type OAuth2FetchRequestHandlerOptions } from './oauth2-fetch-request-handler.js';
export { rewriteFormRequest, type FormRequestOptions } from '../body/rewrite-form-request.js';
export { refuseBodyErrors } from '../body/refusal.js';
