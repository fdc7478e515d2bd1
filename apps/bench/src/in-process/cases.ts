import { bearerHeaderOfSize, HTTP_AUTHORIZATION } from '../bearer-header.js';
import type { Target } from '../targets.js';
import { bearer, callerWith, JWT_AUTHORIZATION } from './procedures.js';
import { dpopCase } from './dpop.js';
import { SIGNATURE_FLOORS } from './signature-floor.js';
import { digestToken } from './digest.js';

/**
 * One side of an in-process pair: a label and the call it times.
 *
 * @example
 * ```ts
 * const side: InProcessSide = { label: 'bare procedure', call: () => caller.bare() };
 * ```
 */
export interface InProcessSide {
  label: string;
  call: () => unknown;
}

/**
 * An in-process pair: side A (the reference) and side B, timed alternately; the ratio is B's
 * time per call over A's.
 *
 * @example
 * ```ts
 * const c: InProcessCase = { id: 'bearer', group: 'readers', a: bare, b: { label: 'password bearer', call: () => caller.bearer() } };
 * ```
 */
export interface InProcessCase {
  id: string;
  group: string;
  a: InProcessSide;
  b: InProcessSide;
  target?: Target;
  /** What the ratio means, for the table. */
  note?: string;
}

const TOKEN_HEADER = HTTP_AUTHORIZATION;
const FIELDS = { grant_type: 'password', username: 'alice', password: 's3cret', scope: 'me items' };

const formData = () => {
  const body = new FormData();
  for (const [name, value] of Object.entries(FIELDS)) body.append(name, value);
  return body;
};

// A resolved `next()` for calling a reader on its own, outside any procedure.
const NEXT_RESULT = Promise.resolve({ ok: true, data: null } as never);
const next = () => NEXT_RESULT;
const readerAlone = (authorization: string) => {
  const headers = { authorization };
  return () => bearer({ ctx: { headers }, next });
};

// The case, in its two forms: the reader and two chained scopes as three `.use()` steps,
// and the same reader and scopes as the one step of `withScopes`.
const CHAIN = 'bearer + 2 chained scopes (3 steps)';
const ONE_STEP = "bearer.withScopes('me', 'items') (1 step)";

const linear = (times: number): Target => ({ metric: 'cpuNsPerCall', atMost: times, text: `≤ ${times}× (linear)` });
const flat: Target = { metric: 'cpuNsPerCall', atMost: 1.05, text: '≤ 1.05× (flat)' };

/**
 * The in-process pairs, in table order.
 *
 * @example
 * ```ts
 * inProcessCases().map((c) => c.id); // ['base-reader', 'bearer', …]
 * ```
 */
export function inProcessCases(): InProcessCase[] {
  const anonymous = callerWith({});
  const authed = callerWith({ authorization: TOKEN_HEADER });
  const withJwt = callerWith({ authorization: JWT_AUTHORIZATION });
  const onePassThrough: InProcessSide = { label: '1 pass-through middleware', call: () => authed.onePassThrough() };
  const kb1 = callerWith({ authorization: bearerHeaderOfSize(1024) });
  const kb8 = callerWith({ authorization: bearerHeaderOfSize(8192) });
  const bare: InProcessSide = { label: 'bare procedure', call: () => anonymous.bare() };
  const search = new URLSearchParams(FIELDS);
  const multipart = formData();
  return [
    { id: 'base-reader', group: 'readers', a: bare, b: { label: 'base reader (oauth2)', call: () => authed.base() } },
    { id: 'bearer', group: 'readers', a: bare, b: { label: 'password bearer', call: () => authed.bearer() } },
    {
      id: 'bearer-two-scopes',
      group: 'readers',
      a: bare,
      b: { label: CHAIN, call: () => authed.bearerTwoScopes() },
      target: { metric: 'cpuNsPerCall', atMost: 1.05, text: '≤ 1.05×' },
    },
    {
      id: 'bearer-with-scopes',
      group: 'readers',
      a: bare,
      b: { label: ONE_STEP, call: () => authed.bearerWithScopes() },
      target: { metric: 'cpuNsPerCall', atMost: 1.05, text: '≤ 1.05×' },
    },
    {
      id: 'three-pass-through',
      group: 'readers',
      a: bare,
      b: { label: '3 pass-through middlewares', call: () => authed.threePassThrough() },
      note: "tRPC's own cost of three .use() steps",
    },
    {
      id: 'one-pass-through',
      group: 'readers',
      a: bare,
      b: onePassThrough,
      note: "tRPC's own cost of one .use() step",
    },
    {
      id: 'ours-vs-pass-through',
      group: 'readers',
      a: { label: '3 pass-through middlewares', call: () => authed.threePassThrough() },
      b: { label: CHAIN, call: () => authed.bearerTwoScopes() },
      note: 'what the security layer adds over three empty steps',
    },
    {
      id: 'ours-vs-one-pass-through',
      group: 'readers',
      a: onePassThrough,
      b: { label: ONE_STEP, call: () => authed.bearerWithScopes() },
      note: 'what the security layer adds over one empty step',
    },
    {
      id: 'scopes-in-one-link',
      group: 'readers',
      a: { label: CHAIN, call: () => authed.bearerTwoScopes() },
      b: { label: "bearer + requireScopes('me', 'items') (2 steps)", call: () => authed.bearerScopesAtOnce() },
      note: 'the same scopes in one requireScopes instead of two',
    },
    {
      id: 'one-step-vs-chain',
      group: 'readers',
      a: { label: CHAIN, call: () => authed.bearerTwoScopes() },
      b: { label: ONE_STEP, call: () => authed.bearerWithScopes() },
      note: 'the same reader and scopes in one step instead of three',
    },
    {
      id: 'verified-cached',
      group: 'verified',
      a: onePassThrough,
      b: { label: "verified withScopes('me', 'items'), cached ES256 JWT", call: () => withJwt.verifiedCached() },
      target: { metric: 'cpuNsPerCall', atMost: 1.1, text: '≤ 1.10×' },
      note: 'a verified protected call over the floor of any .use() design',
    },
    // Goal 3's floor: what any cached step pays before it looks anything up.
    {
      id: 'cached-floor-ctx-keys',
      group: 'verified',
      a: onePassThrough,
      b: { label: 'pass-through putting the 4 keys of a verified step on ctx', call: () => withJwt.fourKeys() },
      note: "tRPC's merge of the keys the contract puts on ctx, with no work",
    },
    {
      id: 'cached-floor-digest',
      group: 'verified',
      a: onePassThrough,
      b: { label: 'the same, after a SHA-256 of the token', call: () => (digestToken(), authed.onePassThrough()) },
      note: "the cache key's digest, which keeps no raw token",
    },
    {
      id: 'verified-cached-any-of',
      group: 'verified',
      a: { label: "cached verified withScopes('me', 'items')", call: () => withJwt.verifiedCached() },
      b: { label: 'the same reader first in an anyOf of two', call: () => withJwt.verifiedCachedAnyOf() },
      note: "anyOf answers from its first reader's cache as that reader does",
    },
    {
      id: 'verified-uncached',
      group: 'verified',
      a: onePassThrough,
      b: { label: "verified withScopes('me', 'items'), ES256 JWT verified every call", call: () => withJwt.verifiedUncached() },
      note: 'the signature check itself, every call',
    },
    {
      id: 'verified-cache-gain',
      group: 'verified',
      a: { label: 'ES256 JWT verified every call', call: () => withJwt.verifiedUncached() },
      b: { label: 'cached ES256 JWT', call: () => withJwt.verifiedCached() },
      note: 'what cacheVerifier saves',
    },
    dpopCase(),
    // jwtVerifier uncached over the floor: crypto.verify on the same token and the same claim checks.
    ...SIGNATURE_FLOORS.map(
      ({ alg, ours, floor }): InProcessCase => ({
        id: `verify-floor-${alg.toLowerCase()}`,
        group: 'verification floor',
        a: { label: `${alg}: crypto.verify + claim checks, inline`, call: floor },
        b: { label: `${alg}: jwtVerifier, uncached`, call: ours },
        target: { metric: 'cpuNsPerCall', atMost: 1.15, text: '≤ 1.15×' },
      }),
    ),
    { id: 'form-object', group: 'form', a: bare, b: { label: 'form: plain object', call: () => anonymous.form(FIELDS) } },
    { id: 'form-search-params', group: 'form', a: bare, b: { label: 'form: URLSearchParams', call: () => anonymous.form(search) } },
    { id: 'form-data', group: 'form', a: bare, b: { label: 'form: FormData', call: () => anonymous.form(multipart) } },
    {
      id: 'header-reader-8k',
      group: 'header length',
      a: { label: 'reader alone, 1 KB header', call: readerAlone(bearerHeaderOfSize(1024)) },
      b: { label: 'reader alone, 8 KB header', call: readerAlone(bearerHeaderOfSize(8192)) },
      target: flat,
    },
    {
      id: 'header-caller-8k',
      group: 'header length',
      a: { label: 'bearer, 1 KB header', call: () => kb1.bearer() },
      b: { label: 'bearer, 8 KB header', call: () => kb8.bearer() },
      target: flat,
    },
    {
      id: 'header-with-scopes-8k',
      group: 'header length',
      a: { label: 'withScopes, 1 KB header', call: () => kb1.bearerWithScopes() },
      b: { label: 'withScopes, 8 KB header', call: () => kb8.bearerWithScopes() },
      target: flat,
    },
    {
      id: 'scopes-at-once-10',
      group: 'scope count',
      a: { label: 'requireScopes(1 scope)', call: () => authed.scopesAtOnce1() },
      b: { label: 'requireScopes(10 scopes)', call: () => authed.scopesAtOnce10() },
      target: linear(10),
    },
    {
      id: 'scopes-at-once-100',
      group: 'scope count',
      a: { label: 'requireScopes(10 scopes)', call: () => authed.scopesAtOnce10() },
      b: { label: 'requireScopes(100 scopes)', call: () => authed.scopesAtOnce100() },
      target: linear(10),
    },
    {
      id: 'with-scopes-10',
      group: 'scope count',
      a: { label: 'withScopes(1 scope), granted set', call: () => authed.withScopes1() },
      b: { label: 'withScopes(10 scopes), granted set', call: () => authed.withScopes10() },
      target: linear(10),
    },
    {
      id: 'with-scopes-100',
      group: 'scope count',
      a: { label: 'withScopes(10 scopes), granted set', call: () => authed.withScopes10() },
      b: { label: 'withScopes(100 scopes), granted set', call: () => authed.withScopes100() },
      target: linear(10),
    },
    {
      id: 'scopes-chained-10',
      group: 'scope count',
      a: { label: '1 chained requireScopes, granted set', call: () => authed.scopesChained1() },
      b: { label: '10 chained requireScopes, granted set', call: () => authed.scopesChained10() },
      target: linear(10),
    },
    {
      id: 'scopes-chained-100',
      group: 'scope count',
      a: { label: '10 chained requireScopes, granted set', call: () => authed.scopesChained10() },
      b: { label: '100 chained requireScopes, granted set', call: () => authed.scopesChained100() },
      target: linear(10),
    },
  ];
}
