import type { VerifyOptions } from '../../src/index.js';

/** What a reader hands a verifier, for a verifier called on its own: a GET request with no headers, an empty ctx. */
export const verifyOptions = (signal?: AbortSignal): VerifyOptions => ({
  ...(signal === undefined ? {} : { signal }),
  request: { method: 'GET', url: 'http://127.0.0.1/', header: () => undefined },
  ctx: {},
});
