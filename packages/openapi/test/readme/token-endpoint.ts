import { createServer } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { tokenEndpoint, tokenError } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const issue = (sub: string) => ({ access_token: `at-${sub}`, token_type: 'Bearer', expires_in: 900, refresh_token: `rt-${sub}` });

export const tokenRouter = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), {
    // Basic or form credentials (RFC 6749 §2.3.1); none: a public client. null → 401 invalid_client.
    authenticateClient: ({ clientId, clientSecret, method }) =>
      method === 'none' ? { id: null } : clientId === 'cli' && same(clientSecret ?? '', 'cli-secret') ? { id: clientId } : null,
  })
    .grant('password', ({ form }) => {
      if (form.username !== 'alice' || !same(form.password, 'wonderland')) throw tokenError('invalid_grant', 'Incorrect username or password');
      return issue(form.username);
    })
    .grant('refresh_token', ({ form }) => {
      if (form.refresh_token !== 'rt-alice') throw tokenError('invalid_grant', 'Unknown refresh token');
      return issue('alice');
    })
    .build(), // 200 { access_token, … } or 400/401 { error, error_description }, Cache-Control: no-store
});

export const tokenServer = createServer(createOAuth2OpenApiHttpHandler({ router: tokenRouter, createContext: ({ req }) => ({ req }) }));
