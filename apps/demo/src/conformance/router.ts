import { passwordRequestForm, passwordRequestFormStrict, type PasswordRequestForm } from '@trpc-oauth2/core';
import { z } from 'zod';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { t } from '../api/trpc.js';
import { conformanceReaders as readers } from './readers.js';

/** The REST path prefix of these routes, under `/api`. */
const PREFIX = '/conformance';

const get = (path: string, summary: string): OpenApiMeta => ({
  openapi: { method: 'GET', path: `${PREFIX}${path}`, tags: ['conformance'], summary, protect: true },
});
const post = (path: string, summary: string): OpenApiMeta => ({
  openapi: {
    method: 'POST',
    path: `${PREFIX}${path}`,
    tags: ['conformance'],
    summary,
    contentTypes: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
  },
});

const authorization = z.object({ authorization: z.string() });
const optionalAuthorization = z.object({ authorization: z.string().nullable() });
const token = z.object({ token: z.string() });
const optionalToken = z.object({ token: z.string().nullable() });
const scopedToken = z.object({ token: z.string(), scopes: z.array(z.string()), scope_str: z.string() });
const form = z.object({
  grant_type: z.string().nullable(),
  username: z.string(),
  password: z.string(),
  scopes: z.array(z.string()),
  client_id: z.string().nullable(),
  client_secret: z.string().nullable(),
});

// The FastAPI test application answers with exactly these fields (`scope` is left out).
const formBody = ({ grant_type, username, password, scopes, client_id, client_secret }: PasswordRequestForm) => ({
  grant_type,
  username,
  password,
  scopes,
  client_id,
  client_secret,
});

// The routes, one per reader; nested under `conformance` below.
const routes = t.router({
  base: t.procedure
    .use(readers.base)
    .meta(get('/base', 'Base reader'))
    .input(z.void())
    .output(authorization)
    .query(({ ctx }) => ({ authorization: ctx.authorization })),
  baseOptional: t.procedure
    .use(readers.baseOptional)
    .meta(get('/base-optional', 'Base reader, autoError false'))
    .input(z.void())
    .output(optionalAuthorization)
    .query(({ ctx }) => ({ authorization: ctx.authorization })),
  baseFlows: t.procedure
    .use(readers.baseFlows)
    .use(readers.baseFlows.requireScopes('svc'))
    .meta(get('/base-flows', 'Base reader with clientCredentials and implicit flows, scope svc'))
    .input(z.void())
    .output(authorization)
    .query(({ ctx }) => ({ authorization: ctx.authorization })),
  password: t.procedure
    .use(readers.password)
    .meta(get('/password', 'Password bearer'))
    .input(z.void())
    .output(token)
    .query(({ ctx }) => ({ token: ctx.token })),
  passwordOptional: t.procedure
    .use(readers.passwordOptional)
    .meta(get('/password-optional', 'Password bearer, autoError false'))
    .input(z.void())
    .output(optionalToken)
    .query(({ ctx }) => ({ token: ctx.token })),
  passwordNamed: t.procedure
    .use(readers.passwordNamed)
    .meta(get('/password-named', 'Password bearer with a scheme name and a description'))
    .input(z.void())
    .output(token)
    .query(({ ctx }) => ({ token: ctx.token })),
  code: t.procedure
    .use(readers.code)
    .meta(get('/code', 'Authorization-code bearer'))
    .input(z.void())
    .output(token)
    .query(({ ctx }) => ({ token: ctx.token })),
  codeOptional: t.procedure
    .use(readers.codeOptional)
    .meta(get('/code-optional', 'Authorization-code bearer, autoError false'))
    .input(z.void())
    .output(optionalToken)
    .query(({ ctx }) => ({ token: ctx.token })),
  form: t.procedure
    .meta(post('/form', 'Password request form'))
    .input(passwordRequestForm)
    .output(form)
    .mutation(({ input }) => formBody(input)),
  formStrict: t.procedure
    .meta(post('/form-strict', 'Strict password request form'))
    .input(passwordRequestFormStrict)
    .output(form)
    .mutation(({ input }) => formBody(input)),
  scopedToken: t.procedure
    .use(readers.password)
    .use(readers.password.requireScopes('items'))
    .meta(get('/scoped-token', 'Password bearer requiring scope items'))
    .input(z.void())
    .output(scopedToken)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes], scope_str: ctx.securityScopes.scopeStr })),
  scopedTokenNested: t.procedure
    .use(readers.password)
    .use(readers.password.requireScopes('me'))
    .use(readers.password.requireScopes('items'))
    .meta(get('/scoped-token-nested', 'Password bearer requiring me, then items'))
    .input(z.void())
    .output(scopedToken)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes], scope_str: ctx.securityScopes.scopeStr })),
});

/**
 * The conformance routes: one route per reader, answering what the reader read, so that this
 * library can be compared with FastAPI request by request. They are not part of the demo API:
 * the server serves them beside it, under `/api/conformance` and as `conformance.*` over tRPC,
 * with their own OpenAPI document (see `conformanceDocument`).
 *
 * @example
 * ```ts
 * await fetch(`${url}/api/conformance/password`, { headers: { authorization: 'bearer abc' } }); // {"token":"abc"}
 * ```
 */
export const conformanceRouter = t.router({ conformance: routes });
