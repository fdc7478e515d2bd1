/**
 * `@trpc-oauth2/openapi/adapters/trpc-fetch`: the tRPC handler for Fetch runtimes alone, for an
 * application that serves no REST routes. Unlike `/adapters/fetch`, nothing here loads
 * trpc-to-openapi, whose root imports its Node adapters: a bundle for a worker or edge target
 * needs no Node built-ins for it.
 * @module
 */
export { oauth2FetchRequestHandler, type OAuth2FetchRequestHandlerOptions } from './oauth2-fetch-request-handler.js';
export { rewriteFormRequest, type FormRequestOptions } from '../body/rewrite-form-request.js';
export { refuseBodyErrors } from '../body/refusal.js';
