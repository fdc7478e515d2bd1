import type { HeadersLike } from './headers-like.js';

/**
 * Reads one header from either kind of {@link HeadersLike}; `name` must be lower case.
 * A header a Node record holds as a list (sent more than once) reads as its values joined by
 * `", "`, as Fetch `Headers` does.
 *
 * @example
 * ```ts
 * readHeader(new Headers({ Authorization: 'Bearer abc' }), 'authorization'); // 'Bearer abc'
 * readHeader({ authorization: 'Bearer abc' }, 'authorization');              // 'Bearer abc'
 * ```
 */
export function readHeader(headers: HeadersLike | null | undefined, name: string): string | undefined {
  if (headers == null) return undefined;
  if (typeof headers.get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | readonly string[] | undefined>)[name];
  return typeof value === 'string' || value === undefined ? value : value.join(', ');
}
