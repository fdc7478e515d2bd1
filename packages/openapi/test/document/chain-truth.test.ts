/**
 * The document is the chain's truth (docs/contract.md#openapi), over generated chains of verified
 * readers: each of three issuers' readers, an optional twin, an `anyOf` group and a nested one,
 * their `requireScopes` and `withScopes` steps and a step-up, in any order. Each chain is
 * documented and called with generated credentials; every answer must be one its document allows
 * (`documentLies` says what would not be).
 */
import { getOAuth2Error } from '@trpc-oauth2/core';
import { initTRPC, type AnyTRPCMiddlewareFunction } from '@trpc/server';
import fc from 'fast-check';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { ISSUERS, READERS, SCOPES, bearer, documentLies, stepUp, type Answer, type ReaderName, type Token } from './chain-model.js';

const t = initTRPC.context<{ headers: Record<string, string> }>().meta<OpenApiMeta>().create();

type Step =
  | { kind: 'reader'; reader: ReaderName }
  | { kind: 'requireScopes' | 'withScopes'; reader: ReaderName; scopes: string[] }
  | { kind: 'stepUp' };

const readerName = fc.constantFrom(...(Object.keys(READERS) as ReaderName[]));
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('reader' as const), reader: readerName }),
  fc.record({ kind: fc.constantFrom('requireScopes' as const, 'withScopes' as const), reader: readerName, scopes: fc.subarray([...SCOPES], { minLength: 1 }) }),
  fc.constant({ kind: 'stepUp' as const }),
);
const token: fc.Arbitrary<Token> = fc.record({
  issuers: fc.subarray([...ISSUERS], { minLength: 1 }),
  scopes: fc.subarray([...SCOPES]),
  acr: fc.constantFrom(undefined, 'mfa' as const),
});
const credential = fc.option(token, { nil: null });

const middlewareOf = (s: Step): AnyTRPCMiddlewareFunction => {
  if (s.kind === 'stepUp') return stepUp() as never;
  const reader = READERS[s.reader] as unknown as { (opts: never): unknown; requireScopes(...scopes: string[]): unknown; withScopes(...scopes: string[]): unknown };
  return (s.kind === 'reader' ? reader : reader[s.kind](...s.scopes)) as never;
};

/** Chains the document can describe: a step-up needs a reader before it to have a principal. */
const describable = (steps: readonly Step[]) => steps.every((s, i) => (s.kind === 'stepUp' ? steps.slice(0, i).some((before) => before.kind !== 'stepUp') : true));

/** One procedure of `steps`, its documented operation, and a call of it as `credential`. */
function procedureOf(steps: readonly Step[]) {
  let builder = t.procedure as unknown as { use(middleware: AnyTRPCMiddlewareFunction): typeof builder };
  for (const s of steps) builder = builder.use(middlewareOf(s));
  const procedure = (builder as unknown as typeof t.procedure)
    .meta({ openapi: { method: 'GET', path: '/chain' } })
    .input(z.void())
    .output(z.string())
    .query(() => 'ok');
  const router = t.router({ chain: procedure });
  const document = generateOAuth2OpenApiDocument(router, { title: 'Chain', version: '1.0.0', baseUrl: 'http://127.0.0.1/api' }) as any;
  const caller = t.createCallerFactory(router);
  const answer = async (as: Token | null): Promise<Answer> => {
    try {
      await caller({ headers: as === null ? {} : { authorization: bearer(as) } }).chain();
      return { status: 200, challenge: null };
    } catch (error) {
      const refusal = getOAuth2Error(error);
      if (refusal === undefined) throw error;
      return { status: refusal.status, challenge: refusal.headers['WWW-Authenticate'] ?? null };
    }
  };
  return { operation: document.paths['/chain'].get, answer };
}

describe('the document of a chain of verified readers says what the chain answers (property)', () => {
  it('allows every call the chain answers, documents every refusal, and allows no call it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), fc.array(credential, { minLength: 1, maxLength: 6 }), async (steps, credentials) => {
        fc.pre(describable(steps));
        const { operation, answer } = procedureOf(steps);
        for (const as of credentials) expect(documentLies(operation, as, await answer(as)), JSON.stringify(as)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  // A verified reader's `requireScopes` consults the reader, so it carries the reader's
  // not-authenticated error: the 401 it answers without a token is documented with no reader step.
  it('a requireScopes step alone: its 401 is documented', async () => {
    const { operation, answer } = procedureOf([{ kind: 'requireScopes', reader: 'A', scopes: ['me'] }]);
    expect(documentLies(operation, null, await answer(null))).toEqual([]);
  });
});
