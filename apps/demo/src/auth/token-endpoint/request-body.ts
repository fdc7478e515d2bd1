import { refuseBodyErrors, rewriteFormRequest } from '@trpc-oauth2/openapi/adapters/fetch';
import { OAuth2Error } from '@trpc-oauth2/core';
import type { TRPCError } from '@trpc/server';

const JSON_TYPE = 'application/json';
const ACCEPTED = ['application/x-www-form-urlencoded', 'multipart/form-data', JSON_TYPE];

const refused = (status: 400 | 413 | 415, message: string): TRPCError =>
  new OAuth2Error({ code: 'ERR_INVALID_REQUEST', status, error: 'invalid_request', message }).toTRPCError();

// Throws the error rewriteFormRequest marked the request with (too large, malformed, a file field).
const throwBodyError = refuseBodyErrors();

async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const tooLarge = () => refused(413, `Request body larger than ${maxBytes} bytes`);
  if (Number(request.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (let chunk = await reader.read().catch(() => null); chunk !== null && !chunk.done; chunk = await reader.read().catch(() => null)) {
      size += chunk.value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(chunk.value);
    }
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
  } catch {
    throw refused(400, 'Failed to parse the application/json request body');
  }
}

/**
 * Reads a token request's body, at most `maxBytes`, as a plain object of its fields. Forms
 * (`application/x-www-form-urlencoded`, RFC 6749's format, or `multipart/form-data`) are read
 * by `@trpc-oauth2/openapi`'s `rewriteFormRequest`, so the form rules are those of every other
 * REST route: the last of repeated values wins, empty values are absent. JSON objects are
 * accepted too. Another media type is 415, a larger body 413, a malformed one 400: each an
 * `OAuth2Error` (cause of the thrown `TRPCError`) with its status.
 *
 * @example
 * ```ts
 * const fields = await readTokenRequestBody(request, 16_384);
 * await caller.auth.token(fields);
 * ```
 */
export async function readTokenRequestBody(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  const contentType = request.headers.get('content-type');
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (mediaType === undefined || !ACCEPTED.includes(mediaType)) {
    throw refused(415, `${contentType ? 'Unsupported' : 'Missing'} Content-Type: send application/x-www-form-urlencoded`);
  }
  const json = await rewriteFormRequest(request, { maxBodySize: maxBytes });
  throwBodyError({ req: json });
  const body = await readJson(json, maxBytes);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refused(400, 'The request body must hold the form fields');
  return body as Record<string, unknown>;
}
