import { initTRPC } from '@trpc/server';
import { describe, it } from 'vitest';
import { SPREAD_GETS_OWN_CLASS, expectSharedClass, leftOutsideYoung } from '@trpc-oauth2/test-kit';
import { readClientCredentials } from '../src/client-credentials.js';
import { refreshTokenGrantForm, tokenEndpoint } from '../src/token-endpoint/index.js';

// What a token request makes per call must die in the young generation. On Node 20 an object
// made by a spread followed by keys it lacks gets a hidden class of its own, made outside it:
// each control does what the code used to do, with names of its own and after ours, so that
// the hidden classes it leaves behind are not ours (BENCHMARKS.md#what-promotes-a-request).

describe('a token request leaves nothing outside the young generation', () => {
  // Only where the spread gets a class of its own: elsewhere there is none to find, and zod's own
  // parse of the form leaves about 400 B a call outside the young generation on Node 24 once its
  // object parser is compiled, which would hide anything of ours.
  it.runIf(SPREAD_GETS_OWN_CLASS)("a grant's parsed form shares one hidden class", async () => {
    const form = { grant_type: 'refresh_token', refresh_token: 'r' };
    const ours = await leftOutsideYoung(() => refreshTokenGrantForm.schema.parse(form));
    const control = await leftOutsideYoung(() => {
      const parsed: Record<string, unknown> = { ...{ kind: 'refresh', value: 'r' }, kind: 'refresh' };
      parsed.wanted = '';
      parsed.list = [];
      parsed.id = null;
      parsed.secret = null;
      return parsed;
    });
    expectSharedClass(control, ours);
  });

  it('Basic client credentials share one hidden class', async () => {
    const headers = { authorization: `Basic ${btoa('client:secret')}` };
    const noForm = { client_id: null, client_secret: null };
    const ours = await leftOutsideYoung(() => readClientCredentials(headers, noForm));
    const control = await leftOutsideYoung(() => ({ ...{ id: 'client', secret: 'secret' }, how: 'basic' }));
    expectSharedClass(control, ours);
  });

  it('a request without grant_type, given the default grant, shares one hidden class', async () => {
    const t = initTRPC.context<{ headers?: Record<string, string> }>().create();
    const token = tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), defaultGrantType: 'password' })
      .grant('password', ({ form }) => ({ access_token: form.username, token_type: 'Bearer' }))
      .build();
    const caller = t.router({ token }).createCaller({});
    const n = 20_000;
    // The same call with grant_type sent: what a token call leaves anyway.
    const sent = await leftOutsideYoung(() => caller.token({ grant_type: 'password', username: 'alice', password: 'x' }), n);
    const ours = await leftOutsideYoung(() => caller.token({ username: 'alice', password: 'x' }), n);
    const control = await leftOutsideYoung(() => ({ ...{ user: 'alice', secret: 'x' }, kind: 'password' }), n);
    expectSharedClass(control, Math.max(0, ours - sent));
  });
});
