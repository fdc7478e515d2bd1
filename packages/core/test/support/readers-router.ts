import { initTRPC } from '@trpc/server';
import { oauth2, oauth2AuthorizationCodeBearer, oauth2PasswordBearer } from '../../src/index.js';

const t = initTRPC.context<{ req: unknown }>().create();
const scopes = { me: 'Read me', items: 'Read items' };

export const readers = {
  password: oauth2PasswordBearer({ tokenUrl: 'token', scopes }),
  passwordOptional: oauth2PasswordBearer({ tokenUrl: 'token', scopes, autoError: false }),
  code: oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', refreshUrl: 'refresh', scopes }),
  codeOptional: oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', autoError: false }),
  base: oauth2(),
  baseOptional: oauth2({ autoError: false }),
};

/** One query per reader, answering what the reader put on ctx. */
export const readersRouter = t.router({
  password: t.procedure.use(readers.password).query(({ ctx }) => ({ token: ctx.token })),
  passwordOptional: t.procedure.use(readers.passwordOptional).query(({ ctx }) => ({ token: ctx.token })),
  code: t.procedure.use(readers.code).query(({ ctx }) => ({ token: ctx.token })),
  codeOptional: t.procedure.use(readers.codeOptional).query(({ ctx }) => ({ token: ctx.token })),
  base: t.procedure.use(readers.base).query(({ ctx }) => ({ authorization: ctx.authorization })),
  baseOptional: t.procedure.use(readers.baseOptional).query(({ ctx }) => ({ authorization: ctx.authorization })),
});
