/**
 * docs/contract.md#body-limits: every answer the hooks write says `Vary: Authorization, DPoP`, on
 * every face, beside the `Vary` it has (tRPC's own, the application's `responseMeta`'s), so that a
 * cache never answers a request with what it stored for another credential, or none: a protected
 * procedure's 200 and 401, and an optional reader's answers, which differ by the token alone.
 */
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const verify = async (token: string) => ({ subject: token, scopes: [] });
const auth = oauth2PasswordBearer({ tokenUrl: '/token', verify });
const optional = oauth2PasswordBearer({ tokenUrl: '/token', verify, autoError: false });
const router = t.router({
  me: t.procedure
    .meta({ openapi: { method: 'GET', path: '/me' } })
    .use(auth)
    .input(z.void())
    .output(z.string())
    .query(() => 'alice'),
  feed: t.procedure
    .meta({ openapi: { method: 'GET', path: '/feed' } })
    .use(optional)
    .input(z.void())
    .output(z.string())
    .query(({ ctx }) => ((ctx as { principal?: unknown }).principal ? 'yours' : 'public')),
});

/** The `Vary` an application's responseMeta sets, if any. */
const APP_VARY = [undefined, 'Origin', 'accept-encoding, authorization', '*'] as const;
type AppVary = (typeof APP_VARY)[number];

const served = new Map<AppVary, Record<Face, RunningFace>>();
beforeAll(async () => {
  for (const vary of APP_VARY) {
    served.set(vary, await serveFaces(router, FACES, { responseMeta: () => (vary === undefined ? {} : { headers: { Vary: vary } }) }));
  }
});
afterAll(() => Promise.all([...served.values()].flatMap((faces) => Object.values(faces).map((face) => face.close()))));

/** The names a response's `Vary` lists, lower case. */
const varyOf = (response: Response) =>
  (response.headers.get('vary') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');

it('lists Authorization and DPoP in Vary beside what the answer varies on already, on every face, whatever the credential', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...FACES),
      fc.constantFrom(...APP_VARY),
      fc.constantFrom('me', 'feed'),
      fc.constantFrom(undefined, 'Bearer good', 'Basic YTpi'),
      async (face, appVary, procedure, authorization) => {
        const running = served.get(appVary)![face];
        const url = `${running.origin}${isRest(face) ? '/api/' : '/trpc/'}${procedure}`;
        const response = await fetch(url, { headers: authorization === undefined ? {} : { authorization } });
        await response.arrayBuffer();
        const vary = varyOf(response);
        if (appVary === '*') {
          expect(vary).toContain('*');
          return;
        }
        expect(vary).toContain('authorization');
        expect(vary).toContain('dpop');
        // Named once, whatever case the application wrote it in.
        expect(vary.filter((name) => name === 'authorization')).toHaveLength(1);
        for (const name of (appVary ?? '').split(',').map((item) => item.trim().toLowerCase()).filter((item) => item !== '')) expect(vary).toContain(name);
        // tRPC's own Vary is kept.
        if (!isRest(face)) expect(vary).toEqual(expect.arrayContaining(['trpc-accept', 'accept']));
      },
    ),
    { numRuns: 60 },
  );
});
