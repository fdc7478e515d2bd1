/**
 * Whether a string is well-formed UTF-16 (no lone surrogate). A token that is not is no token: a
 * header's value cannot hold one, and one from a WebSocket's connection params or `createCaller`
 * would be sent on, or hashed, as UTF-8, where every lone surrogate reads as U+FFFD: `x\uDFFF`
 * and `x\uFFFD` would be one token to an introspection endpoint and one key to a cache.
 * @module
 */

/*
 * A header's value is a one-byte string, which V8 knows well-formed without a look.
 */
const LONE_SURROGATE = /\p{Surrogate}/u;
const nativeWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** Whether `text` holds no lone surrogate. */
export const isWellFormed: (text: string) => boolean =
  nativeWellFormed === undefined ? (text) => !LONE_SURROGATE.test(text) : (text) => nativeWellFormed.call(text);
