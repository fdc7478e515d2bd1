import { request as httpRequest } from 'node:http';
import type { JsonResponse } from './http.js';

/**
 * A request sent from a chosen loopback address (any of 127.0.0.0/8 reaches a server listening on
 * 127.0.0.1), so one test can play several clients. The body is parsed as JSON when it parses.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<JsonResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
        }
        resolve({ status: res.statusCode ?? 0, headers, body });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** `POST /api/token` with a urlencoded form, from `localAddress`. */
export const postTokenFrom = (localAddress: string, baseUrl: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  requestFrom(localAddress, `${baseUrl}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });

/** The tRPC mutation `auth.token` (superjson envelope), from `localAddress`. */
export const trpcTokenFrom = (localAddress: string, baseUrl: string, input: Record<string, string>) =>
  requestFrom(localAddress, `${baseUrl}/trpc/auth.token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ json: input }),
  });
