import { initTRPC } from '@trpc/server';
import {
  invalidTokenError,
  oauth2,
  oauth2PasswordBearer,
  passwordRequestFormStrict,
  readClientCredentials,
  type PasswordRequestFormStrict,
} from '../../src/index.js';
import { headersFromContext } from '../../src/protocol.js';
import { tokenError } from '../../src/token-endpoint/index.js';

/**
 * The secrets hostile requests carry. Each holds `S3CR3T`, so that even a fragment of one in a
 * response or a log line is found.
 */
export const SECRETS = {
  password: 'pw-S3CR3T-4e1f0c',
  clientSecret: 'cs-S3CR3T-9a7b2d',
  token: 'tok-S3CR3T-77c2aa',
} as const;
export const SECRET_MARK = 'S3CR3T';

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

/** A well-formed token request body, as JSON. */
export const GOOD_LOGIN = {
  grant_type: 'password',
  username: 'alice',
  password: SECRETS.password,
  client_id: 'app',
  client_secret: SECRETS.clientSecret,
};
