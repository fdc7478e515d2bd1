import type { TokenResponse } from '../../src/auth/token-endpoint/service.js';

/** A response read whole: status, headers and the body parsed as JSON (or the text). */
export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** `fetch` that reads the body: JSON when it parses, text otherwise. */
export async function request(url: string, init: RequestInit = {}): Promise<JsonResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body };
}

/** `POST /api/token` with a urlencoded form. */
export const postToken = (baseUrl: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  request(`${baseUrl}/api/token`, { method: 'POST', body: new URLSearchParams(fields), headers });

/** Logs in over REST and returns the token response; fails the test on anything but 200. */
export async function login(baseUrl: string, username: string, password: string, scope?: string): Promise<TokenResponse> {
  const { status, body } = await postToken(baseUrl, { username, password, ...(scope === undefined ? {} : { scope }) });
  if (status !== 200) throw new Error(`login as ${username}: ${status} ${JSON.stringify(body)}`);
  return body as TokenResponse;
}

/** `Authorization: Bearer …`. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** `Authorization: Basic …` as RFC 6749 §2.3.1 encodes it. */
export const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});
