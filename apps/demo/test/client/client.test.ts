import type { AppRouter as PackageAppRouter } from '@trpc-oauth2/demo';
import { createTRPCClient, httpLink } from '@trpc/client';
import superjson from 'superjson';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import type { TokenResponse } from '../../src/auth/token-endpoint/service.js';
import { demoClient } from '../../src/client/demo-client.js';
import { runClientFlow } from '../../src/client/flow.js';
import type { Item, User } from '../../src/store/users.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();

describe('the client walk-through (npm run client)', () => {
  it('logs in, meets a missing scope, refreshes and sees a reused token revoke its family', async () => {
    const lines: string[] = [];
    await runClientFlow(demo.url, (line) => lines.push(line));
    expect(lines).toEqual([
      '1. alice logs in through the tRPC mutation auth.token (client demo-cli, scope "me items")',
      '   Bearer token for scope "me items", expires in 900 s',
      '2. users.me → Alice Liddell <alice@example.com>, may be granted: me, items',
      '3. users.items → Pocket watch, Looking glass, Jar of orange marmalade',
      '4. bob logs in (public client, no scope asked: he gets what he may have)',
      '   granted scope "me"',
      '   users.items → 403 Not enough permissions (ERR_INSUFFICIENT_SCOPE)',
      '   WWW-Authenticate: Bearer error="insufficient_scope", scope="me items"',
      "5. alice's access token is refreshed with auth.token's refresh_token grant (the refresh token rotates)",
      '   new tokens for scope "me items"; users.me → alice',
      '6. the spent refresh token is presented again: refused, and its whole family revoked',
      '   old refresh token → 400 The refresh token is invalid, expired or revoked (ERR_INVALID_GRANT)',
      '   its successor → 400 The refresh token is invalid, expired or revoked (ERR_INVALID_GRANT): alice must log in again',
    ]);
  });

  it('stops with a clear error when the server does not answer as expected', async () => {
    await expect(runClientFlow('http://127.0.0.1:9', () => undefined)).rejects.toThrow('fetch failed');
  });
});

describe('the client is typed end to end', () => {
  const client = demoClient('http://127.0.0.1:9');

  it('infers inputs and outputs from the router', () => {
    expectTypeOf(client.users.me.query).returns.resolves.toEqualTypeOf<User>();
    expectTypeOf(client.users.items.query).returns.resolves.toEqualTypeOf<Item[]>();
    expectTypeOf(client.auth.token.mutate).returns.resolves.toEqualTypeOf<TokenResponse>();
    expectTypeOf({ username: 'alice', password: 'wonderland' }).toExtend<Parameters<typeof client.auth.token.mutate>[0]>();
    expectTypeOf(new URLSearchParams()).toExtend<Parameters<typeof client.auth.token.mutate>[0]>();
    expectTypeOf(client.conformance.passwordOptional.query).returns.resolves.toEqualTypeOf<{ token: string | null }>();
  });

  it('types a client from the package name, as an app outside the repository imports it', async () => {
    let token = '';
    const outside = createTRPCClient<PackageAppRouter>({
      links: [httpLink({ url: `${demo.url}/trpc`, transformer: superjson, headers: () => ({ authorization: `Bearer ${token}` }) })],
    });
    expectTypeOf(outside.users.items.query).returns.resolves.toEqualTypeOf<Item[]>();
    expectTypeOf(outside.users.me.query).returns.resolves.toEqualTypeOf<User>();
    expectTypeOf(outside.auth.token.mutate).returns.resolves.toEqualTypeOf<TokenResponse>();
    const compileOnly = () => {
      // @ts-expect-error -- no such procedure
      void outside.users.profile.query();
    };
    expect(typeof compileOnly).toBe('function');
    token = (await outside.auth.token.mutate({ username: 'bob', password: 'builder' })).access_token;
    expect((await outside.users.me.query()).username).toBe('bob');
  });

  it('refuses a wrong procedure name or input at compile time', () => {
    // Types only: these lines are never run.
    const compileOnly = () => {
      // @ts-expect-error -- no such procedure
      void client.users.profile.query();
      // @ts-expect-error -- `me` is a query, not a mutation
      void client.users.me.mutate();
      // @ts-expect-error -- the password is required
      void client.auth.token.mutate({ username: 'alice' });
      // @ts-expect-error -- the username must be text
      void client.auth.token.mutate({ username: 1, password: 'x' });
      // @ts-expect-error -- a refresh needs grant_type refresh_token and the token
      void client.auth.token.mutate({ refresh_token: 'r' });
    };
    expect(typeof compileOnly).toBe('function');
  });
});
