import { MAX_BODY, SECRETS, type HostileServer } from '@trpc-oauth2/test-kit';
import { initTRPC } from '@trpc/server';
import {
  oauth2,
  oauth2OnError,
  oauth2PasswordBearer,
  passwordRequestFormStrict,
  readClientCredentials,
  type PasswordRequestFormStrict,
} from '../../src/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';
import { tokenError } from '../../src/token-endpoint/index.js';
import { headersFromContext } from '../../src/protocol.js';
import { serveOnEveryAdapter, type Adapter, type RunningServer } from '../support/serve.js';

/** Stands for a real token check: one token is valid, anything else is `invalid_token`. */
export const hostileAuth = oauth2PasswordBearer({
  tokenUrl: 'token',
  scopes: { me: 'Read your profile' },
  verify: async (token) => {
    if (token !== SECRETS.token) throw invalidTokenError();
    return { user: 'alice', scopes: ['me'] };
  },
});

/**
 * The token endpoint's resolver: authenticates the client (Basic or form), then the user. Shared
 * by every face's hostile application, so that each is attacked through the same logic.
 */
export function issueHostileToken({ ctx, input }: { ctx: { req: unknown }; input: PasswordRequestFormStrict }) {
  const client = readClientCredentials(headersFromContext(ctx), input);
  if (client.clientId !== 'app' || client.clientSecret !== SECRETS.clientSecret) {
    throw tokenError('invalid_client', 'Client authentication failed', { challenge: true });
  }
  if (input.username !== 'alice' || input.password !== SECRETS.password) {
    throw tokenError('invalid_grant', 'Incorrect username or password');
  }
  return { access_token: SECRETS.token, token_type: 'Bearer' as const };
}

const t = initTRPC.context<{ req: unknown }>().create();

/**
 * A small application as a user of the package would write it: a strict token endpoint that
 * authenticates the client (Basic or form) and the user, a protected procedure, and one behind
 * the base reader.
 */
export const hostileRouter = t.router({
  token: t.procedure.input(passwordRequestFormStrict).mutation(issueHostileToken),
  me: t.procedure
    .use(hostileAuth.withScopes('me'))
    .query(({ ctx }) => ({ user: ctx.principal.user, scopes: ctx.securityScopes.scopes })),
  base: t.procedure.use(oauth2()).query(({ ctx }) => ({ length: ctx.authorization.length })),
});

/**
 * Serves the hostile app on both tRPC adapters with a body limit, logging every failure in
 * full (`console.error(error)`: message, stack and cause), as tRPC's documentation suggests.
 */
export async function serveHostileApp(): Promise<Record<Adapter, RunningServer & HostileServer>> {
  const servers = await serveOnEveryAdapter(hostileRouter, {
    maxBodySize: MAX_BODY,
    onError: oauth2OnError(({ error }) => console.error(error)),
  });
  const hostile = (server: RunningServer) => ({ ...server, origin: new URL(server.url).origin, prefix: '/trpc', rest: false });
  return { fetch: hostile(servers.fetch), standalone: hostile(servers.standalone) };
}
