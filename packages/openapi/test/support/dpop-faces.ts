import { dpopNonces, dpopProofVerifier, type DPoPAlgorithm } from '@trpc-oauth2/core/dpop';
import type { DPoPServer } from '@trpc-oauth2/test-kit';
import { initTRPC, type AnyTRPCMiddlewareFunction } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { isRest, routeOf, type Face, type RunningFace } from './faces.js';

/** The origin the DPoP tables' applications say is their public one: proofs name it, whatever the Host header says. */
export const DPOP_ORIGIN = 'https://api.example.test';

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();

/** The server nonces of the table's `nonces` server: a test's proofs carry the current one. */
export const TABLE_NONCES = dpopNonces({ secret: 'the-resource-server-nonce-secret-0123456789' });

/**
 * The `dpop` option of a table server's reader: `mode`, and a checker pinned to `algorithms` that
 * asks for {@link TABLE_NONCES} when the server is the `nonces` one.
 */
export function tableDPoP(mode: 'allowed' | 'required', nonces: boolean, algorithms: readonly DPoPAlgorithm[] = ['ES256']) {
  return { mode, proofs: dpopProofVerifier({ algorithms, ...(nonces ? { nonces: TABLE_NONCES } : {}) }) };
}

/** A fresh extractable P-256 key pair, as oauth4webapi's DPoP client signs proofs with. */
export const newProofKeyPair = () => crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;

/**
 * The router of the DPoP table (docs/contract.md#dpop): one procedure per table server, each
 * behind the step `stepOf` gives for its mode (with server nonces for `nonces`), answering the
 * token the step put on ctx.
 */
export function dpopTableRouter(stepOf: (mode: 'allowed' | 'required', nonces: boolean) => AnyTRPCMiddlewareFunction) {
  const procedure = (server: DPoPServer) =>
    t.procedure
      .use(stepOf(server === 'required' ? 'required' : 'allowed', server === 'nonces'))
      .meta({ openapi: { method: 'GET', path: `/dpop/${server}` } })
      .input(z.void())
      .output(z.object({ token: z.string() }))
      .query(({ ctx }) => ({ token: String((ctx as { token?: unknown }).token) }));
  return t.router({ allowed: procedure('allowed'), required: procedure('required'), nonces: procedure('nonces') });
}

/** The URL a client of `face` calls `server` at, under the public origin; `below`: without the face's base path. */
export function dpopPublicUrl(servers: Record<Face, RunningFace>, face: Face, server: DPoPServer, below = false): URL {
  const { pathname } = new URL(routeOf(servers[face], server).url);
  const base = isRest(face) ? '/api' : '/trpc';
  return new URL(`${DPOP_ORIGIN}${below ? pathname.slice(base.length) : pathname}`);
}
