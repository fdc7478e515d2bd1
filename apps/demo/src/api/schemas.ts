import { z } from 'zod';

/**
 * The token response body (RFC 6749 §5.1), as documented.
 *
 * @example
 * ```ts
 * const token = t.procedure.output(tokenResponseSchema);
 * ```
 */
export const tokenResponseSchema = z
  .object({
    access_token: z.string().meta({ description: 'A JWT to send as `Authorization: Bearer …`' }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().meta({ description: 'Seconds until the access token expires' }),
    refresh_token: z.string().meta({ description: 'Single use: each refresh returns a new one' }),
    scope: z.string().meta({ description: 'The granted scopes, separated by spaces' }),
  })
  .meta({ id: 'TokenResponse' });

/**
 * A user as `GET /users/me` shows it.
 *
 * @example
 * ```ts
 * const me = authed.output(userSchema);
 * ```
 */
export const userSchema = z
  .object({
    username: z.string(),
    fullName: z.string(),
    email: z.string(),
    scopes: z.array(z.string()).meta({ description: 'The scopes this user may be granted' }),
  })
  .meta({ id: 'User' });

/**
 * One item of `GET /users/me/items`.
 *
 * @example
 * ```ts
 * const items = authed.output(z.array(itemSchema));
 * ```
 */
export const itemSchema = z.object({ id: z.number().int(), title: z.string() }).meta({ id: 'Item' });
