import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { getOAuth2Error } from '../../src/index.js';
import { encodeBasicCredentials } from '../../src/protocol.js';
import { revocationEndpoint, tokenEndpoint, tokenError } from '../../src/token-endpoint/index.js';

// docs/contract.md#client-authentication: RFC 6749 §5.2 answers `invalid_client` with
// `WWW-Authenticate` when the client authenticated with the `Authorization` header, and the
// library answers it without one otherwise. Whoever refuses the client (`authenticateClient`, a
// grant's handler, `around`, `revoke`), at either endpoint, however the credentials came.

type Refuser = 'authenticateClient' | 'handler' | 'around';
let refuser: Refuser = 'authenticateClient';

const t = initTRPC.context<{ headers: Record<string, string> }>().create();
const authenticateClient = () => (refuser === 'authenticateClient' ? null : { id: 'app' });
const suspended = () => tokenError('invalid_client', 'This client is suspended');
const router = t.router({
  token: tokenEndpoint(t.procedure, {
    authenticateClient,
    around: async (_call, next) => {
      if (refuser === 'around') throw suspended();
      return next();
    },
  })
    .grant('client_credentials', () => {
      if (refuser === 'handler') throw suspended();
      return { access_token: 'at', token_type: 'Bearer' };
    })
    .build(),
  revoke: revocationEndpoint(t.procedure, {
    authenticateClient,
    tokenTypes: ['refresh_token'],
    revoke: () => {
      if (refuser !== 'authenticateClient') throw suspended();
    },
  }),
});

/** Where a client may put its credentials, and whether that is the `Authorization` header (RFC 6749 §2.3.1). */
interface Placement {
  name: string;
  basic: boolean;
  headers: Record<string, string>;
  form: { client_id?: string; client_secret?: string };
}
const placements = fc.constantFrom<Placement>(
  { name: 'Basic', basic: true, headers: { authorization: `Basic ${encodeBasicCredentials('app', 's3cret')}` }, form: {} },
  { name: 'Basic, scheme in capitals', basic: true, headers: { authorization: `BASIC ${encodeBasicCredentials('app', 's3cret')}` }, form: {} },
  { name: 'Basic with the id in the form', basic: true, headers: { authorization: `Basic ${encodeBasicCredentials('app', 's3cret')}` }, form: { client_id: 'app' } },
  { name: 'Basic with an empty secret', basic: true, headers: { authorization: `Basic ${encodeBasicCredentials('app', '')}` }, form: {} },
  { name: 'the form', basic: false, headers: {}, form: { client_id: 'app', client_secret: 's3cret' } },
  { name: 'the form, id alone', basic: false, headers: {}, form: { client_id: 'app' } },
  { name: 'none', basic: false, headers: {}, form: {} },
  { name: 'the empty Basic Og==, read as none', basic: false, headers: { authorization: 'Basic Og==' }, form: {} },
  { name: 'a Bearer header, read as none', basic: false, headers: { authorization: 'Bearer abc' }, form: { client_id: 'app' } },
);

it('answers every invalid_client with the Basic challenge exactly when the client used Basic', async () => {
  await fc.assert(
    fc.asyncProperty(placements, fc.constantFrom<Refuser>('authenticateClient', 'handler', 'around'), fc.constantFrom('token', 'revoke'), async (placement, who, endpoint) => {
      // The revocation endpoint has no `around`: its `revoke` refuses in its place.
      refuser = endpoint === 'revoke' && who === 'around' ? 'handler' : who;
      const caller = router.createCaller({ headers: placement.headers });
      const call = endpoint === 'token' ? caller.token({ grant_type: 'client_credentials', ...placement.form }) : caller.revoke({ token: 't', ...placement.form });
      const refused = await call.then(() => undefined, getOAuth2Error);
      expect({ status: refused?.status, error: refused?.error, headers: refused?.headers }).toEqual({
        status: 401,
        error: 'invalid_client',
        headers: placement.basic ? { 'WWW-Authenticate': 'Basic' } : {},
      });
    }),
    { numRuns: 300 },
  );
});
