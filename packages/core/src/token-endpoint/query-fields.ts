/**
 * The fields of a token or revocation endpoint a request's URL carries in its query, refused.
 * RFC 6749 §2.3.1 says client credentials MUST NOT be included in the request URI, and every other
 * parameter of a token or revocation request goes in the entity-body (RFC 6749 §4.1.3, §4.3.2,
 * §4.4.2, §6; RFC 7009 §2.1). Read from the body alone, `?client_secret=…` would be a request
 * answered as one the client did not make, and a secret written to every log the URL passes.
 * A query parameter the endpoint does not read stays allowed: RFC 6749 §3.2 lets the endpoint's
 * URI have a query. See docs/contract.md#token-responses.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { clientUrlOf } from '../request-url.js';
import { tokenError } from './token-errors.js';

/**
 * `invalid_request` naming each of `fields` that the query of `target` (a URL or a request target)
 * names, however it is percent-encoded (`client%5Fsecret` is `client_secret`), with a value or
 * without; `undefined` when it names none, or there is no target.
 *
 * @example
 * ```ts
 * queryFieldsRefusal('/api/token?client_secret=s3cret', ['client_id', 'client_secret']); // 400 'client_secret: not allowed in the URL query, send it in the request body'
 * ```
 */
export function queryFieldsRefusal(target: string | undefined, fields: Iterable<string>): TRPCError | undefined {
  const start = target?.indexOf('?') ?? -1;
  if (start === -1) return undefined;
  const end = target!.indexOf('#', start);
  const query = new URLSearchParams(target!.slice(start + 1, end === -1 ? undefined : end));
  const named = [...fields].filter((name) => query.has(name));
  if (named.length === 0) return undefined;
  return tokenError('invalid_request', named.map((name) => `${name}: not allowed in the URL query, send it in the request body`).join('; '));
}

/**
 * Throws {@link queryFieldsRefusal} for the request in `ctx.req` (a Fetch `Request` or a Node
 * `IncomingMessage`, where `headersFromContext` finds the headers), at the URL the client used.
 * Nothing is checked when `ctx` holds no request (a `createCaller` call has no URL).
 *
 * @example
 * ```ts
 * refuseFieldsInQuery(ctx, declaration.fields);
 * ```
 */
export function refuseFieldsInQuery(ctx: unknown, fields: readonly string[]): void {
  const req = typeof ctx === 'object' && ctx !== null ? (ctx as { req?: unknown }).req : undefined;
  const refusal = queryFieldsRefusal(typeof req === 'object' && req !== null ? clientUrlOf(req) : undefined, fields);
  if (refusal !== undefined) throw refusal;
}
