import type { TRPCError } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import {
  OAuth2Error,
  getOAuth2Error,
  oauth2PasswordBearer,
  readClientCredentials,
  type ClientCredentials,
  type OAuth2ErrorStatus,
} from '../../src/index.js';

expectTypeOf(getOAuth2Error(new Error())).toEqualTypeOf<OAuth2Error | undefined>();
expectTypeOf<OAuth2Error['status']>().toEqualTypeOf<OAuth2ErrorStatus>();
expectTypeOf(new OAuth2Error({ code: 'ERR_X', status: 401, message: 'm' }).toTRPCError()).toEqualTypeOf<TRPCError>();
// @ts-expect-error a status without a tRPC code of the same meaning is refused
new OAuth2Error({ code: 'ERR_X', status: 500, message: 'm' });
// @ts-expect-error the factory must build a TRPCError
oauth2PasswordBearer({ tokenUrl: 't', makeNotAuthenticatedError: () => new Error('x') });
expectTypeOf(readClientCredentials({}, { client_id: null, client_secret: null })).toEqualTypeOf<ClientCredentials>();
expectTypeOf<ClientCredentials['method']>().toEqualTypeOf<'client_secret_basic' | 'client_secret_post' | 'none'>();
