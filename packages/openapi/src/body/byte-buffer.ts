/**
 * Bytes gathered from the chunks of a body, in one buffer that grows by doubling, so reading a
 * body costs work and memory in proportion to its size, however small its chunks: a body sent in
 * 1-byte chunks is neither kept as one object per chunk nor copied again per chunk.
 * @module
 */

/** The first buffer's size when nothing says how large the body is. */
const INITIAL_CAPACITY = 1024;

/**
 * The largest first buffer a declared size gets: a `Content-Length` is the client's word, and a
 * body that never comes must not hold more memory than this while it is awaited.
 */
const MAX_INITIAL_CAPACITY = 64 * 1024;

/**
 * A growing buffer of bytes: {@link append} copies a chunk in (the buffer doubles when full, never
 * past `maxSize` when one is given), {@link take} hands out what was gathered and starts again.
 *
 * @example
 * ```ts
 * const bytes = new ByteBuffer(100_000);
 * for await (const chunk of chunks) bytes.append(chunk);
 * const body = bytes.take();
 * ```
 */
export class ByteBuffer {
  #bytes: Uint8Array<ArrayBuffer>;
  #length = 0;
  readonly #maxSize: number | null;

  /** `maxSize`: the most bytes it will be asked to hold (`null`: no bound), so it never grows past it. `expected`: the size announced, if any (trusted up to 64 KiB). */
  constructor(maxSize: number | null = null, expected?: number) {
    this.#maxSize = maxSize;
    const start = expected !== undefined && Number.isSafeInteger(expected) && expected > 0 ? Math.min(expected, MAX_INITIAL_CAPACITY) : INITIAL_CAPACITY;
    this.#bytes = new Uint8Array(maxSize === null ? start : Math.min(start, maxSize));
  }

  /** How many bytes it holds. */
  get length(): number {
    return this.#length;
  }

  /** Copies `chunk` in after what it holds. */
  append(chunk: Uint8Array): void {
    const needed = this.#length + chunk.byteLength;
    if (needed > this.#bytes.byteLength) {
      const doubled = Math.max(needed, this.#bytes.byteLength * 2, INITIAL_CAPACITY);
      const grown = new Uint8Array(this.#maxSize === null ? doubled : Math.max(needed, Math.min(doubled, this.#maxSize)));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    this.#bytes.set(chunk, this.#length);
    this.#length = needed;
  }

  /** What it holds, as one view (without a copy), and empties it: the next append starts a new buffer. */
  take(): Uint8Array<ArrayBuffer> {
    const taken = this.#bytes.subarray(0, this.#length);
    this.#bytes = new Uint8Array(0);
    this.#length = 0;
    return taken;
  }
}
