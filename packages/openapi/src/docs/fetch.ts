/**
 * `createDocsFetchHandler`: serves Swagger UI and the documents from any Fetch runtime, with the
 * files of `swagger-ui-dist` read however the runtime can.
 * @module
 */
import { NOT_FOUND_BODY } from '../utils/base-path.js';
import { docsRoutes, missingAssetHeaders, type DocsOptions, type SwaggerUiAsset } from './swagger-ui.js';

/**
 * Reads one file of `swagger-ui-dist` (see `SWAGGER_UI_ASSETS`): its bytes, a stream of them, or
 * `null` when it cannot be found (a 404). On Node, `swaggerUiAssets()` from
 * `@trpc-oauth2/openapi/docs/node` reads them from the installed package; elsewhere, read them
 * from wherever your platform keeps static files.
 */
export type DocsAssets = (file: SwaggerUiAsset) => Promise<Uint8Array | ReadableStream<Uint8Array> | string | null>;

/**
 * The options of {@link createDocsFetchHandler}: the docs' options and where the files of
 * `swagger-ui-dist` come from.
 */
export interface DocsFetchHandlerOptions extends DocsOptions {
  assets: DocsAssets;
}

/**
 * Serves the OpenAPI documents and Swagger UI (from `swagger-ui-dist`, no CDN) to a Fetch
 * `Request`, as FastAPI serves `/docs`: the page at `/docs`, its files below it, the OAuth2
 * redirect page (`/docs/oauth2-redirect.html`), each document at its `url`. Swagger UI uses PKCE
 * for the authorization-code flow, and keeps its authorization across reloads only when asked
 * (`persistAuthorization: true`). Every answer carries a Content-Security-Policy, `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: DENY` and `Referrer-Policy: no-referrer`. Resolves to `undefined` for a path
 * that is not the docs', for your router to answer. No Node API: it runs on edge runtimes.
 *
 * @example
 * ```ts
 * const docs = createDocsFetchHandler({ documents: [{ url: '/openapi.json', document }], assets: swaggerUiAssets() });
 * serve({ fetch: async (req) => (await docs(req)) ?? createOAuth2OpenApiFetchHandler({ basePath: '/api', router: appRouter, req }) });
 * ```
 */
export function createDocsFetchHandler(options: DocsFetchHandlerOptions): (req: Request) => Promise<Response | undefined> {
  const route = docsRoutes(options);
  return async (req) => {
    const answer = route(req.method, new URL(req.url).pathname);
    if (answer === undefined) return undefined;
    if (answer.body === null || 'text' in answer.body) return new Response(answer.body?.text ?? null, { status: answer.status, headers: answer.headers });
    const { asset, head } = answer.body;
    const bytes = await options.assets(asset);
    if (bytes === null) return new Response(head === true ? null : NOT_FOUND_BODY, { status: 404, headers: missingAssetHeaders(answer.headers) });
    if (head === true) {
      // A stream the HEAD does not send is let go, not left open.
      if (bytes instanceof ReadableStream) await bytes.cancel();
      return new Response(null, { status: answer.status, headers: answer.headers });
    }
    return new Response(bytes as BodyInit, { status: answer.status, headers: answer.headers });
  };
}
