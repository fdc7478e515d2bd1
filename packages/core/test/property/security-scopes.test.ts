import { initTRPC, TRPCError } from '@trpc/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getOAuth2Error, oauth2AuthorizationCodeBearer, oauth2PasswordBearer } from '../../src/index.js';
import { getProcedureSecurity } from '../../src/protocol.js';
import { scopeToken, scopeTokenVerifier } from '../support/scope-tokens.js';

const t = initTRPC.context<{ headers: Record<string, string> }>().create();
/** A token granting `scopes`, which both readers' verifiers accept. */
const bearer = (scopes: readonly string[]) => ({ authorization: `Bearer ${scopeToken('p', scopes)}` });

/** A `requireScopes` call: which of the two readers, and the names passed (repeats allowed). */
interface Step {
  reader: 0 | 1;
  scopes: string[];
}
/** Where each reader's own middleware goes among the steps (`null`: the second reader is not used). */
interface Chain {
  steps: Step[];
  readerAt: readonly [number | null, number | null];
}

/** The two schemes' declared scope names: valid scope-tokens, some shared between the schemes. */
const scopeName = fc.stringMatching(/^[\x21\x23-\x5B\x5D-\x7E]{1,4}$/);
const pools = fc
  .tuple(fc.uniqueArray(scopeName, { minLength: 1, maxLength: 5 }), fc.uniqueArray(scopeName, { minLength: 1, maxLength: 5 }), fc.boolean())
  .map(([a, b, share]): [string[], string[]] => [a, share && !b.includes(a[0]!) ? [...b, a[0]!] : b]);

const stepsOf = (pool: [string[], string[]], maxLength: number) =>
  fc.array(
    fc.constantFrom<0 | 1>(0, 1).chain((reader) =>
      fc.record({
        reader: fc.constant(reader),
        scopes: fc.array(fc.constantFrom(...pool[reader]), { minLength: 1, maxLength: 4 }),
      }),
    ),
    { maxLength },
  );

const chainOf = (pool: [string[], string[]], maxLength: number) =>
  stepsOf(pool, maxLength).chain((steps) =>
    fc.record({
      steps: fc.constant(steps),
      readerAt: fc.tuple(fc.nat(steps.length), fc.option(fc.nat(steps.length))),
    }),
  );

/** The model: every name in order of first appearance, once. */
const accumulate = (steps: readonly Step[], reader?: 0 | 1) => {
  const scopes: string[] = [];
  for (const step of steps) {
    if (reader !== undefined && step.reader !== reader) continue;
    for (const scope of step.scopes) if (!scopes.includes(scope)) scopes.push(scope);
  }
  return scopes;
};

interface Builder {
  use(middleware: unknown): Builder;
  query(resolver: (opts: { ctx: { securityScopes: unknown } }) => unknown): { _def: object };
}

function buildReaders(pool: [string[], string[]]) {
  const declare = (names: string[]) => Object.fromEntries(names.map((name) => [name, `scope ${name}`]));
  const verify = scopeTokenVerifier('p');
  return [
    oauth2PasswordBearer({ tokenUrl: 'token', scopes: declare(pool[0]), verify }),
    oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', scopes: declare(pool[1]), verify }),
  ] as const;
}

/** Appends a chain's middlewares to `start`: its steps, with each reader at its place. */
function extend(start: Builder, chain: Chain, readers: ReturnType<typeof buildReaders>) {
  let builder = start;
  for (let i = 0; i <= chain.steps.length; i++) {
    if (chain.readerAt[0] === i) builder = builder.use(readers[0]);
    if (chain.readerAt[1] === i) builder = builder.use(readers[1]);
    const step = chain.steps[i];
    if (step) builder = builder.use((readers[step.reader].requireScopes as (...s: string[]) => unknown)(...step.scopes));
  }
  return builder;
}

/**
 * The model of the document's requirement: both readers are verified, so every principal must
 * grant every scope of the chain, of whichever scheme (docs/contract.md#verified-readers), and the
 * schemes the chain uses are one requirement, each with all of them (docs/contract.md#openapi).
 */
const requirementOf = (steps: readonly Step[], chains: readonly Chain[]) => {
  const requirement: Record<string, string[]> = {};
  const used = (reader: 0 | 1) => chains.some((c) => c.readerAt[reader] !== null) || steps.some((s) => s.reader === reader);
  if (used(0)) requirement.OAuth2PasswordBearer = accumulate(steps);
  if (used(1)) requirement.OAuth2AuthorizationCodeBearer = accumulate(steps);
  return requirement;
};

describe('SecurityScopes for random chains of requireScopes', () => {
  it('accumulate in declaration order without duplicates, and never leak between siblings', async () => {
    await fc.assert(
      fc.asyncProperty(
        pools.chain((pool) =>
          fc.record({
            pool: fc.constant(pool),
            base: chainOf(pool, 4),
            // Only the base uses the first reader; a branch may add the second.
            branches: fc.array(chainOf(pool, 4).map((c): Chain => ({ ...c, readerAt: [null, c.readerAt[1]] })), { minLength: 2, maxLength: 4 }),
            order: fc.array(fc.nat(), { minLength: 4, maxLength: 12 }),
          }),
        ),
        async ({ pool, base, branches, order }) => {
          const readers = buildReaders(pool);
          const start = extend(t.procedure as unknown as Builder, base, readers);
          const procedures: Record<string, { procedure: { _def: object }; steps: Step[]; chains: Chain[] }> = {
            base: { procedure: start.query(({ ctx }) => ctx.securityScopes), steps: base.steps, chains: [base] },
            ...Object.fromEntries(
              branches.map((branch, i) => [
                `branch${i}`,
                {
                  procedure: extend(start, branch, readers).query(({ ctx }) => ctx.securityScopes),
                  steps: [...base.steps, ...branch.steps],
                  chains: [base, branch],
                },
              ]),
            ),
          };
          const router = t.router(Object.fromEntries(Object.entries(procedures).map(([name, p]) => [name, p.procedure])) as never);
          const caller = t.createCallerFactory(router)({ headers: bearer([...pool[0], ...pool[1]]) }) as Record<string, () => Promise<unknown>>;
          const names = Object.keys(procedures);
          // Calls interleaved in a random order, each procedure several times.
          for (const pick of [...order, ...names.keys()]) {
            const name = names[pick % names.length]!;
            const { steps } = procedures[name]!;
            const scopes = accumulate(steps);
            expect(await caller[name]!(), name).toEqual({ scopes, scopeStr: scopes.join(' ') });
          }
          for (const [name, { procedure, steps, chains }] of Object.entries(procedures)) {
            const security = getProcedureSecurity(procedure);
            expect(security?.requirement, name).toEqual(requirementOf(steps, chains));
            expect(security?.requirements, name).toEqual([requirementOf(steps, chains)]);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('with a verified grant, refuse at the first step that requires one not granted, naming all so far', async () => {
    await fc.assert(
      fc.asyncProperty(
        pools.chain((pool) =>
          fc.record({
            pool: fc.constant(pool),
            chain: chainOf(pool, 6),
            granted: fc.subarray([...new Set([...pool[0], ...pool[1]])]),
          }),
        ),
        async ({ pool, chain, granted }) => {
          const readers = buildReaders(pool);
          const procedure = extend(t.procedure as unknown as Builder, chain, readers).query(({ ctx }) => ctx.securityScopes);
          const router = t.router({ q: procedure as never });
          const ctx = { headers: bearer(granted) };
          const outcome = await (t.createCallerFactory(router)(ctx) as { q: () => Promise<unknown> }).q().then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );

          let refusedWith: string[] | undefined;
          for (let i = 1; i <= chain.steps.length && !refusedWith; i++) {
            const soFar = accumulate(chain.steps.slice(0, i));
            if (soFar.some((scope) => !granted.includes(scope))) refusedWith = soFar;
          }
          if (refusedWith === undefined) {
            const scopes = accumulate(chain.steps);
            expect(outcome).toEqual({ value: { scopes, scopeStr: scopes.join(' ') } });
          } else {
            const error = (outcome as { error?: unknown }).error;
            expect(error).toBeInstanceOf(TRPCError);
            expect((error as TRPCError).code).toBe('FORBIDDEN');
            expect(getOAuth2Error(error)).toMatchObject({
              code: 'ERR_INSUFFICIENT_SCOPE',
              status: 403,
              headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${refusedWith.join(' ')}"` },
            });
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
