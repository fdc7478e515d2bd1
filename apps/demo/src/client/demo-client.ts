import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '../server/app-router.js';

/**
 * A typed tRPC client of the demo; `getToken` supplies the bearer token for each request.
 *
 * @example
 * ```ts
 * let token: string | undefined;
 * const client = demoClient('http://127.0.0.1:3000', () => token);
 * token = (await client.auth.token.mutate({ username: 'alice', password: 'wonderland' })).access_token;
 * await client.users.me.query();
 * ```
 */
export function demoClient(baseUrl: string, getToken: () => string | undefined = () => undefined) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${baseUrl}/trpc`,
        transformer: superjson,
        headers: () => {
          const token = getToken();
          return token === undefined ? {} : { authorization: `Bearer ${token}` };
        },
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
