/**
 * Reading an authorization server's answer (a key set, an introspection response) within a size
 * limit, counted in bytes as they arrive: a body past the limit is cancelled there, never buffered
 * whole first. A server need not send `content-length`, and a chunked answer can be endless.
 * Web APIs only (no `Buffer`): the verifiers also run on edge runtimes.
 * @module
 */

/**
 * The body as UTF-8 text, decoded as `response.text()` does; rejects, having cancelled the rest of the body, once it passes `limit`
 * bytes (or at once when its `content-length` says it will). `what` names the answer in the error.
 */
export async function readBounded(response: Response, limit: number, what: string): Promise<string> {
  if (!response.body) return '';
  const tooLarge = () => new Error(`${what} is larger than ${limit} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
