import type { TRPCError } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import {
  OAuth2Error,
  getOAuth2Error,
  oauth2PasswordBearer,
  readClientCredentials,
  type ClientCredentials,
} from '../../src/index.js';
import { type OAuth2ErrorCode, type OAuth2ErrorStatus } from '../../src/errors-entry.js';

expectTypeOf(getOAuth2Error(new Error())).toEqualTypeOf<OAuth2Error | undefined>();
expectTypeOf<OAuth2Error['status']>().toEqualTypeOf<OAuth2ErrorStatus>();
expectTypeOf(new OAuth2Error({ code: 'ERR_INVALID_TOKEN', status: 401, message: 'm' }).toTRPCError()).toEqualTypeOf<TRPCError>();
// @ts-expect-error a status without a tRPC code of the same meaning is refused
new OAuth2Error({ code: 'ERR_INVALID_TOKEN', status: 500, message: 'm' });
// The codes are a closed set, each code named once here: a plain string is not a code.
const everyCode = ['ERR_NOT_AUTHENTICATED', 'ERR_INVALID_TOKEN', 'ERR_INSUFFICIENT_SCOPE', 'ERR_INSUFFICIENT_USER_AUTHENTICATION', 'ERR_INVALID_REQUEST', 'ERR_INVALID_CLIENT',
  'ERR_INVALID_GRANT', 'ERR_UNAUTHORIZED_CLIENT', 'ERR_UNSUPPORTED_GRANT_TYPE', 'ERR_INVALID_SCOPE', 'ERR_UNSUPPORTED_TOKEN_TYPE', 'ERR_SLOW_DOWN',
  'ERR_BODY_TOO_LARGE', 'ERR_MALFORMED_BODY', 'ERR_FILE_FIELD', 'ERR_INVALID_DPOP_PROOF', 'ERR_USE_DPOP_NONCE'] as const;
expectTypeOf<(typeof everyCode)[number]>().toEqualTypeOf<OAuth2ErrorCode>();
expectTypeOf<string>().not.toExtend<OAuth2ErrorCode>();
// @ts-expect-error a code outside the closed set is refused
new OAuth2Error({ code: 'ERR_X', status: 401, message: 'm' });
expectTypeOf<OAuth2Error['code']>().toEqualTypeOf<OAuth2ErrorCode>();
// @ts-expect-error the factory must build a TRPCError
oauth2PasswordBearer({ tokenUrl: 't', makeNotAuthenticatedError: () => new Error('x') });
expectTypeOf(readClientCredentials({}, { client_id: null, client_secret: null })).toEqualTypeOf<ClientCredentials>();
expectTypeOf<ClientCredentials['method']>().toEqualTypeOf<'client_secret_basic' | 'client_secret_post' | 'none'>();
