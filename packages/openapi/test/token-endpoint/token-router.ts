import { type ClientCredentials } from '@trpc-oauth2/core';
import {
  authorizationCodeGrantForm,
  oauth2ErrorData,
  revocationEndpoint,
  tokenEndpoint,
  tokenError,
  verifyCodeVerifier,
} from '@trpc-oauth2/core/token-endpoint';
import { TRPCError, initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';

/** The clients of the test router: a confidential one, a public one, and one limited to client_credentials. */
const CLIENTS: Record<string, { secret: string; grantTypes?: string[] }> = {
  app: { secret: 's3cret' },
  spa: { secret: '' },
  svc: { secret: 'svc-secret', grantTypes: ['client_credentials'] },
};

/** The PKCE pair of RFC 7636 Appendix B. */
export const PKCE = { verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' };

export const revoked: string[] = [];

/** Every client's credentials as `authenticateClient` was given them, in order. */
export const seenCredentials: ClientCredentials[] = [];

const authenticateClient = (credentials: ClientCredentials) => {
  seenCredentials.push(credentials);
  const { clientId, clientSecret, method } = credentials;
  if (method === 'none') return { id: null as string | null };
  const client = clientId === null ? undefined : CLIENTS[clientId];
  return client !== undefined && client.secret === (clientSecret ?? '') ? { id: clientId, grantTypes: client.grantTypes } : null;
};

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

/** A router with a token endpoint of four grants (the ready-made three and authorization_code with PKCE) and a revocation endpoint. */
export const tokenRouter = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token', tags: ['auth'] } }), { authenticateClient, maxBodySize: 2_000 })
    .grant('password', ({ form, client }) => {
      // A fault whose message names what it should not: what a database error may carry.
      if (form.username === 'fault') throw new Error(`database down while checking the password ${form.password}`);
      // A fault that wraps a refusal (a service layer's error with the refusal as its cause) is a fault.
      if (form.username === 'wrapped') throw new Error(`user store failed for ${form.password}`, { cause: tokenError('invalid_grant', 'Incorrect username or password') });
      // A store that is down for now: a fault that keeps its 503 (RFC 7009 §2.2.1's meaning).
      if (form.username === 'unavailable') throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'user store unreachable' });
      // A handler's own refusal of the client (its registration suspended), thrown without a challenge.
      if (form.username === 'suspended') throw tokenError('invalid_client', 'This client is suspended');
      // The same refusal as tRPC spells it.
      if (form.username === 'unauthorized') throw new TRPCError({ code: 'UNAUTHORIZED', message: 'This client may not sign users in' });
      if (form.password !== 'wonderland') throw tokenError('invalid_grant', 'Incorrect username or password');
      if (form.scopes.some((scope) => scope !== 'me')) throw tokenError('invalid_scope', 'Unknown scope');
      return { access_token: `at-${form.username}-${client.id ?? 'public'}`, token_type: 'Bearer', expires_in: 60, refresh_token: 'rt-1', scope: 'me' };
    })
    .grant('refresh_token', ({ form }) => {
      if (form.refresh_token !== 'rt-1') throw tokenError('invalid_grant', 'Unknown refresh token');
      return { access_token: 'at-refreshed', token_type: 'Bearer' };
    })
    .grant('client_credentials', ({ client }) => {
      if (client.id === null) throw tokenError('unauthorized_client', 'Public clients may not use client_credentials');
      return { access_token: `at-${client.id}`, token_type: 'Bearer' };
    })
    .grant('authorization_code', authorizationCodeGrantForm, async ({ form }) => {
      if (form.code !== 'code-1' || !(await verifyCodeVerifier(form.code_verifier, PKCE.challenge))) {
        throw tokenError('invalid_grant', 'Invalid authorization code or code_verifier');
      }
      return { access_token: 'at-code', token_type: 'Bearer' };
    })
    .build(),
  revoke: revocationEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/revoke', tags: ['auth'] } }), {
    authenticateClient,
    tokenTypes: ['refresh_token', 'access_token'],
    revoke: ({ form }) => {
      if (form.token === 'fault') throw new Error('revocation store down at postgres://admin:hunter2@db');
      if (form.token === 'unavailable') throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'revocation store unreachable' });
      if (form.token === 'suspended') throw tokenError('invalid_client', 'This client is suspended');
      if (form.token === 'unauthorized') throw new TRPCError({ code: 'UNAUTHORIZED' });
      revoked.push(form.token);
    },
  }),
});
