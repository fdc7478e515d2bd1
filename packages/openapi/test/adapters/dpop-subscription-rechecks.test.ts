/**
 * docs/contract.md#dpop and #subscriptions, on the tRPC faces of this package (its standalone
 * server and fetch handler, Server-Sent Events): a subscription opened with a DPoP-bound token and
 * its proof is rechecked (`recheckInterval`) against the binding it opened with. A verifier asked
 * again may answer another `cnf`; the stream has no proof but its opening request's, so a token
 * now bound to another key ends it with `invalid_dpop_proof`, and one no longer bound with
 * `invalid_token`; one still bound to the proof's key streams on.
 */
import { oauth2PasswordBearer, type Principal } from '@trpc-oauth2/core';
import { accessTokenHash } from '@trpc-oauth2/core/dpop';
import { initTRPC } from '@trpc/server';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { DPOP_ORIGIN } from '../support/dpop-faces.js';
import { TRPC_FACES, serveFace } from '../support/faces.js';

/** How many rechecks a stream that must go on is read through. */
const RECHECKS = 3;

let privateKey: CryptoKey;
let publicJwk: JWK;
let jkt: string;
let otherJkt: string;
beforeAll(async () => {
  const [mine, other] = await Promise.all([generateKeyPair('ES256', { extractable: true }), generateKeyPair('ES256', { extractable: true })]);
  privateKey = mine.privateKey;
  publicJwk = await exportJWK(mine.publicKey);
  jkt = await calculateJwkThumbprint(publicJwk, 'sha256');
  otherJkt = await calculateJwkThumbprint(await exportJWK(other.publicKey), 'sha256');
});

const proofFor = async (url: string, token: string) =>
  new SignJWT({ htm: 'GET', htu: url, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), ath: await accessTokenHash(token) })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk })
    .sign(privateKey);

type Renewed = 'the proof key' | 'another key' | 'no key';

/** A router whose subscription `feed` streams forever behind a DPoP reader rechecking every 30 ms. */
function feedRouter(renewed: Renewed) {
  const state = { rechecks: 0 };
  const verify = async (_token: string, options?: { fresh?: boolean }): Promise<Principal> => {
    if (options?.fresh !== true) return { scopes: ['me'], cnf: { jkt } };
    state.rechecks++;
    return renewed === 'the proof key' ? { scopes: ['me'], cnf: { jkt } } : renewed === 'another key' ? { scopes: ['me'], cnf: { jkt: otherJkt } } : { scopes: ['me'] };
  };
  const reader = oauth2PasswordBearer({ tokenUrl: '/token', origin: DPOP_ORIGIN, verify, recheckInterval: 30, dpop: { mode: 'required' } });
  const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
  const router = t.router({
    feed: t.procedure.use(reader).subscription(async function* () {
      for (let n = 0; ; n++) {
        yield n;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }),
  });
  return { router, state };
}

describe.each(TRPC_FACES)('a DPoP subscription rechecked on the %s face', (face) => {
  /** The refusal the stream ended with, or `streams on` once it outlived `RECHECKS` rechecks. */
  const outcome = async (renewed: Renewed): Promise<string> => {
    const { router, state } = feedRouter(renewed);
    const running = await serveFace(router, face);
    const abort = new AbortController();
    try {
      const proof = await proofFor(`${DPOP_ORIGIN}/trpc/feed`, 'tok');
      const response = await fetch(`${running.origin}/trpc/feed`, { headers: { authorization: 'DPoP tok', dpop: proof, accept: 'text/event-stream' }, signal: abort.signal });
      expect(response.status).toBe(200);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return 'ended without an error';
        text += value;
        const error = /event: serialized-error\ndata: (.*)\n/.exec(text);
        if (error !== null) return (JSON.parse(error[1]!) as { message: string }).message;
        if (state.rechecks >= RECHECKS) return 'streams on';
      }
    } finally {
      abort.abort();
      await running.close();
    }
  };

  it.each([
    ['another key', 'The DPoP proof key is not the key the access token is bound to'],
    ['no key', 'The access token is not DPoP-bound'],
    ['the proof key', 'streams on'],
  ] as const)('renewed bound to %s: %s', async (renewed, expected) => {
    expect(await outcome(renewed)).toBe(expected);
  });
});
