// docs/contract.md#body-limits: on the tRPC faces, a token or revocation call's body of a type
// neither the policy nor tRPC reads is refused by the policy (415 `invalid_request`), and every
// other type is left to the installed tRPC, whichever 11.x release it is.
import { describe, expect, it } from 'vitest';
import { TOKEN_TRPC_READS, TRPC_OWN_TYPES, unreadTypeError, type BodyPolicy } from '../../src/body/policy.js';

const token: BodyPolicy = { reads: TOKEN_TRPC_READS, maxBodySize: null, adapterReads: TRPC_OWN_TYPES };

describe('unreadTypeError', () => {
  it.each([
    ['text/plain', 'Unsupported content-type "text/plain'],
    ['application/xml; charset=utf-8', 'Unsupported content-type "application/xml; charset=utf-8'],
    [undefined, 'Missing content-type header'],
    ['', 'Missing content-type header'],
    ['   ', 'Missing content-type header'],
  ])('refuses %j with a 415', (contentType, message) => {
    const error = unreadTypeError('POST', contentType, token);
    expect(error?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(error?.message).toBe(message);
  });

  // tRPC 11.4 reads `application/jsonx` as JSON (its match is `startsWith`), 11.25 refuses it
  // (an exact match): the policy refuses neither, so each release answers as it would alone.
  it.each(['application/json', 'Application/JSON; charset=utf-8', 'application/jsonx', 'application/json-patch+json', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/x-www-form-urlencoded'])(
    'leaves %j to the policy or to tRPC',
    (contentType) => expect(unreadTypeError('POST', contentType, token)).toBeUndefined(),
  );

  it('refuses nothing of a GET or a HEAD, nor of a policy that does not name what its adapter reads', () => {
    for (const method of ['GET', 'head']) expect(unreadTypeError(method, 'text/plain', token), method).toBeUndefined();
    expect(unreadTypeError('POST', 'text/plain', { reads: TOKEN_TRPC_READS, maxBodySize: null })).toBeUndefined();
  });
});
