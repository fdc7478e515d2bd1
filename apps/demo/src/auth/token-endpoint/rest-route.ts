import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOAuth2Error } from '@trpc-oauth2/core';
import { TRPCError } from '@trpc/server';
import { incomingMessageToRequest } from '@trpc/server/adapters/node-http';
import type { DemoContext } from '../../api/trpc.js';
import type { AppRouter } from '../../server/app-router.js';
import { readTokenRequestBody } from './request-body.js';

/**
 * What the REST token endpoint needs.
 *
 * @example
 * ```ts
 * const options: TokenEndpointOptions = {
 *   router: appRouter,
 *   createContext: (req, incoming) => ({ req, clientAddress: clientAddress(incoming.socket), services }),
 *   maxBodyBytes: 16_384,
 * };
 * ```
 */
export interface TokenEndpointOptions {
  router: AppRouter;
  /** `req` is the Fetch Request the procedures read; `incoming` the Node request it was made from. */
  createContext: (req: Request, incoming: IncomingMessage) => DemoContext;
  maxBodyBytes: number;
}

interface TokenHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

// RFC 6749 §5.1: responses carrying tokens must not be cached, errors included.
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

const fail = (status: number, error: string, description: string, headers: Record<string, string> = {}): TokenHttpResponse => ({
  status,
  headers,
  body: { error, error_description: description },
});

// Server faults only; the form (a password!) is never logged.
const logFault = (error: unknown) => {
  const cause = error instanceof TRPCError && error.cause instanceof Error ? error.cause : error;
  console.error(`token endpoint failed: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : typeof cause}`);
};

/** A field's value, `undefined` when absent (an empty value counts as absent, as in the form). */
function field(body: Record<string, unknown>, name: string): unknown {
  const value = body[name];
  return value === '' || value === null ? undefined : value;
}

/**
 * An error thrown while answering a token request, as an RFC 6749 §5.2 response. OAuth 2.0
 * errors keep their status and headers (one without an RFC code, such as a body refused as too
 * large, is `invalid_request`); a form the parser refused is `invalid_request` naming the fields.
 *
 * @example
 * ```ts
 * tokenErrorResponse(tokenError('invalid_grant', 'Incorrect username or password')).status; // 400
 * ```
 */
export function tokenErrorResponse(error: unknown): TokenHttpResponse {
  const oauth2 = getOAuth2Error(error);
  if (oauth2 !== undefined) return fail(oauth2.status, oauth2.error ?? 'invalid_request', oauth2.message, { ...oauth2.headers });
  if (error instanceof TRPCError && error.code === 'BAD_REQUEST') {
    const issues = (error.cause as { issues?: { message: string }[] } | undefined)?.issues;
    return fail(400, 'invalid_request', issues?.map((issue) => issue.message).join('; ') || 'Invalid token request');
  }
  return fail(500, 'server_error', 'The token request could not be completed');
}

/**
 * `POST /api/token`: reads the form, calls the `auth.token` procedure (or `auth.refresh` for
 * `grant_type=refresh_token`, RFC 6749 §6) and answers in RFC 6749's shapes — the token response
 * or `{ error, error_description }` — with `Cache-Control: no-store`. trpc-to-openapi's handler
 * cannot shape an error body like that; the procedures stay the one implementation.
 *
 * @example
 * ```ts
 * const token = tokenEndpoint({ router: appRouter, createContext, maxBodyBytes: 16_384 });
 * if (req.method === 'POST' && pathname === '/api/token') return token(req, res);
 * ```
 */
export function tokenEndpoint(options: TokenEndpointOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<TokenHttpResponse> => {
    let request: Request;
    try {
      // Throws on a request line or Host header no URL can be built from.
      request = incomingMessageToRequest(req, res, { maxBodySize: null });
    } catch {
      return fail(400, 'invalid_request', 'Invalid request URL');
    }
    try {
      const body = await readTokenRequestBody(request, options.maxBodyBytes);
      const caller = options.router.createCaller(options.createContext(request, req));
      const grantType = field(body, 'grant_type');
      if (grantType === undefined || grantType === 'password') {
        return { status: 200, headers: {}, body: await caller.auth.token(body as never) };
      }
      if (grantType === 'refresh_token') return { status: 200, headers: {}, body: await caller.auth.refresh(body as never) };
      return fail(400, 'unsupported_grant_type', 'Supported grant types: password, refresh_token');
    } catch (error) {
      const response = tokenErrorResponse(error);
      if (response.status >= 500) logFault(error);
      return response;
    }
  };
  return async (req, res) => {
    const { status, headers, body } = await answer(req, res).catch((error: unknown) => {
      logFault(error);
      return fail(500, 'server_error', 'The token request could not be completed');
    });
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', ...NO_STORE, ...headers }).end(text);
  };
}
