import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import superjson from 'superjson';
import type { DPoPHandle } from 'oauth4webapi';
import type { AppRouter } from '../server/app-router.js';
import { dpopFetch } from './dpop.js';

/**
 * A typed tRPC client of the demo; `getToken` supplies the access token for each request: sent
 * as a bearer token, or, given oauth4webapi's DPoP handle of the key it is bound to, as a
 * DPoP-bound token with a proof of each request (RFC 9449), the nonce the API asks for included.
 *
 * @example
 * ```ts
 * let token: string | undefined;
 * const client = demoClient('http://127.0.0.1:3000', () => token);
 * token = (await client.auth.token.mutate({ username: 'alice', password: 'wonderland' })).access_token;
 * await client.users.me.query();
 * ```
 */
export function demoClient(baseUrl: string, getToken: () => string | undefined = () => undefined, dpop?: DPoPHandle) {
  const bound = dpop === undefined ? undefined : dpopFetch(dpop, () => getToken() ?? '');
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${baseUrl}/trpc`,
        transformer: superjson,
        headers: () => {
          const token = getToken();
          return token === undefined || bound !== undefined ? {} : { authorization: `Bearer ${token}` };
        },
        ...(bound === undefined ? {} : { fetch: bound as never }),
      }),
    ],
  });
}

/**
 * A refusal as the client sees it: HTTP status, the stable code, and the challenge header.
 *
 * @example
 * ```ts
 * const refusal = await refusalOf(client.users.items.query()); // { status: 403, code: 'ERR_INSUFFICIENT_SCOPE', … }
 * ```
 */
export interface Refusal {
  status: number | undefined;
  code: string | undefined;
  message: string;
  wwwAuthenticate: string | null;
}

/**
 * Awaits a call that must fail and describes the failure; a call that succeeds is an error.
 *
 * @example
 * ```ts
 * const { status } = await refusalOf(client.users.items.query());
 * ```
 */
export async function refusalOf(call: Promise<unknown>): Promise<Refusal> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    const { data, meta, message } = error as TRPCClientError<AppRouter>;
    const response = (meta as { response?: Response } | undefined)?.response;
    return {
      status: data?.httpStatus,
      code: data?.oauth2?.code,
      message,
      wwwAuthenticate: response?.headers.get('www-authenticate') ?? null,
    };
  }
  throw new Error('The call was expected to fail, and it succeeded');
}
