/**
 * The SHA-256 `cacheVerifier` keys its entries by, as this runtime computes it. No module of this
 * package imports `node:crypto`: Node's is reached through `process.getBuiltinModule` (Node
 * 20.16 and later), so the package bundles for runtimes without it (edge functions, workers),
 * which get WebCrypto's digest instead. Not exported from the package.
 * @module
 */

/**
 * The base64 SHA-256 of a string's UTF-8: computed at once (`sync`, Node's `crypto`), or only as
 * a promise (WebCrypto's `crypto.subtle.digest`, which goes through a job).
 */
export type TokenDigest =
  | { readonly sync: true; readonly digest: (text: string) => string }
  | { readonly sync: false; readonly digest: (text: string) => Promise<string> };

/** What the digest uses of `node:crypto`, typed here so no declaration file names that module. */
export interface NodeCryptoHashes {
  /** The one-shot hash (Node 20.12 and later): half the cost of a `Hash` object. */
  readonly hash?: (algorithm: 'sha256', data: string, outputEncoding: 'base64') => string;
  readonly createHash: (algorithm: 'sha256') => { update(data: string): { digest(encoding: 'base64'): string } };
}

/**
 * The digest made of what a runtime has: Node's `crypto` where there is one (synchronous, no job
 * queued per token), WebCrypto's `subtle` elsewhere; `undefined` with neither.
 */
export function tokenDigestFrom(runtime: { readonly nodeCrypto?: NodeCryptoHashes | undefined; readonly subtle?: SubtleCrypto | undefined }): TokenDigest | undefined {
  const { nodeCrypto, subtle } = runtime;
  if (nodeCrypto !== undefined) {
    const { hash, createHash } = nodeCrypto;
    return typeof hash === 'function'
      ? { sync: true, digest: (text) => hash('sha256', text, 'base64') }
      : { sync: true, digest: (text) => createHash('sha256').update(text).digest('base64') };
  }
  if (subtle !== undefined) {
    const encoder = new TextEncoder();
    return { sync: false, digest: async (text) => base64(new Uint8Array(await subtle.digest('SHA-256', encoder.encode(text)))) };
  }
  return undefined;
}

/** 32 bytes as base64, as Node's `digest('base64')` spells them. */
const base64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));

/** This runtime's digest, picked once when the package loads. */
export const runtimeTokenDigest: TokenDigest | undefined = tokenDigestFrom({
  nodeCrypto: (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') as
    | NodeCryptoHashes
    | undefined,
  subtle: (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle,
});
