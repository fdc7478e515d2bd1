/**
 * Request headers as either HTTP stack delivers them: a Fetch `Headers` object (fetch adapter,
 * trpc-to-openapi) or a Node `IncomingHttpHeaders` record (node/standalone adapter).
 *
 * @example
 * ```ts
 * const fromFetch: HeadersLike = new Headers({ authorization: 'Bearer abc' });
 * const fromNode: HeadersLike = { authorization: 'Bearer abc' };
 * ```
 */
export type HeadersLike =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;
