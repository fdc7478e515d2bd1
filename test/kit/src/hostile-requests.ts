import { SECRETS } from './hostile.js';
import type { RawRequest } from './raw-http.js';

/** `GET /me` with each of `authorization` as an `Authorization` header, in order. */
export const meRequest = (...authorization: string[]): RawRequest => ({
  path: '/me',
  headers: authorization.map((value) => ['Authorization', value] as const),
});

/** `POST /token` with `body` as JSON and each of `authorization` as an `Authorization` header. */
export const loginRequest = (body: object, ...authorization: string[]): RawRequest => ({
  method: 'POST',
  path: '/token',
  headers: [['Content-Type', 'application/json'] as const, ...authorization.map((value) => ['Authorization', value] as const)],
  body: JSON.stringify(body),
});

/** A Basic credential of `raw`, bytes as they are. */
export const basic = (raw: string | Uint8Array) => `Basic ${Buffer.from(raw).toString('base64')}`;

/** A good login without the client's credentials (for them to come as Basic). */
export const FORM_LOGIN = { grant_type: 'password', username: 'alice', password: SECRETS.password };

export const NOT_AUTHENTICATED = { status: 401, message: 'Not authenticated', challenge: 'Bearer' } as const;
export const INVALID_TOKEN = {
  status: 401,
  message: 'Could not validate credentials',
  challenge: 'Bearer error="invalid_token", error_description="Could not validate credentials"',
} as const;
export const INVALID_CLIENT = { status: 401, message: 'Malformed client credentials in the Basic Authorization header', challenge: 'Basic' } as const;
