const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * An `Authorization` value of exactly `bytes` bytes: `Bearer ` and a base64url-looking token.
 *
 * @example
 * ```ts
 * bearerHeaderOfSize(1024).length; // 1024
 * ```
 */
export function bearerHeaderOfSize(bytes: number): string {
  const length = bytes - 'Bearer '.length;
  return `Bearer ${Array.from({ length }, (_, i) => ALPHABET[(i * 7) % ALPHABET.length]).join('')}`;
}

/**
 * The `Authorization` value the HTTP runs send: a 160-byte header, about a short JWT's size.
 *
 * @example
 * ```ts
 * fetch(`${origin}/items`, { headers: { authorization: HTTP_AUTHORIZATION } });
 * ```
 */
export const HTTP_AUTHORIZATION = bearerHeaderOfSize(160);
