import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOAuth2HTTPHandler, createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';
import { rawRequest } from '@trpc-oauth2/test-kit';
import { httpRouter } from '../support/http-router.js';

/** What the handler left on each request, read once the response is sent. */
const seen = new Map<string, { headers: IncomingMessage['headers']; hasBody: boolean; before: IncomingMessage['headers'] }>();
const servers: Server[] = [];
const origins: Record<'rest' | 'trpc', string> = { rest: '', trpc: '' };

beforeAll(async () => {
  const rest = createOAuth2OpenApiHttpHandler({ router: httpRouter, createContext: ({ req }) => ({ req }) });
  const trpc = createOAuth2HTTPHandler({ router: httpRouter, basePath: '/trpc/', createContext: ({ req }) => ({ req }) });
  for (const [face, handle] of [['rest', (req: IncomingMessage, res: never) => void rest(req, res)], ['trpc', trpc]] as const) {
    const server = createServer((req, res) => {
      const before = structuredClone(req.headers);
      res.once('finish', () => seen.set(String(req.headers['x-case']), { headers: req.headers, hasBody: 'body' in req, before }));
      handle(req, res as never);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origins[face] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    servers.push(server);
  }
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

const BODIES = [
  { name: 'a urlencoded form', contentType: 'application/x-www-form-urlencoded', body: 'username=alice&password=x', status: 200 },
  { name: 'a urlencoded form over the limit', contentType: 'application/x-www-form-urlencoded', body: `username=${'a'.repeat(100_001)}&password=x`, status: 413 },
  { name: 'JSON', contentType: 'application/json', body: '{"username":"alice","password":"x"}', status: 200 },
  { name: 'malformed JSON', contentType: 'application/json', body: '{"username":', status: 400 },
];
const cases = (['rest', 'trpc'] as const).flatMap((face) => BODIES.map((body) => ({ face, ...body })));

describe('the Node handlers never change the request they are given', () => {
  it.each(cases)('$face, $name, Authorization sent twice: req.headers as they came, no req.body', async ({ face, name, contentType, body, status }) => {
    const id = `${face} ${name}`;
    const path = face === 'rest' ? '/token' : '/trpc/token';
    const response = await rawRequest(origins[face], {
      method: 'POST',
      path,
      headers: [['Content-Type', contentType], ['Authorization', 'Bearer a'], ['Authorization', 'Bearer b'], ['X-Case', id]],
      body,
    });
    expect(response.status).toBe(status);
    // The server's 'finish' may come after the client has read the response.
    const last = await vi.waitFor(() => {
      const entry = seen.get(id);
      if (entry === undefined) throw new Error(`${id}: not finished`);
      return entry;
    });
    expect(last.hasBody).toBe(false);
    expect(last.headers).toEqual(last.before);
    expect(last.headers['content-type']).toBe(contentType);
    expect(last.headers.authorization).toBe('Bearer a');
  });
});
