// An introspection endpoint behind a body limit (nginx's `client_max_body_size`, body-parser's
// `limit`) answers 413 to a form it will not read: the form is the token and its hint, so it is
// the client's token that is too large, a 401 for the client to see, not a 503 that says the
// authorization server is down (docs/contract.md#verified-readers). A real server on 127.0.0.1.
import { oauth2PasswordBearer, oauth2ResponseMeta } from '@trpc-oauth2/core';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { introspectionVerifier, TOKEN_REFUSALS } from '../src/index.js';
import { outcomeOf } from './support/refusal.js';

const AUDIENCE = 'https://api.example';
const LIMIT = 8 * 1024;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await closing(server);
});

/**
 * An RFC 7662 endpoint that reads a form of at most `LIMIT` bytes, as a proxy or a body parser in
 * front of it does: a declared `Content-Length` over it is answered 413 unread, and so is a body
 * that grows past it. Any token it reads is active.
 */
async function introspectionEndpoint(): Promise<{ url: string; forms: () => number }> {
  let forms = 0;
  const server = createServer((req, res) => {
    const declared = Number(req.headers['content-length']);
    if (declared > LIMIT) return void res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end('Payload Too Large');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > LIMIT) return void res.writeHead(413, { connection: 'close' }).end('Payload Too Large');
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      forms++;
      const token = new URLSearchParams(Buffer.concat(chunks).toString()).get('token');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ active: token !== null, aud: AUDIENCE, scope: 'me', sub: 'alice' }));
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  const port = await listening(server);
  return { url: `http://127.0.0.1:${port}/introspect`, forms: () => forms };
}

describe('introspectionVerifier against an endpoint that answers 413', () => {
  it('refuses the oversized token (401 invalid_token, saying it is too large), and accepts a token the endpoint reads', async () => {
    const endpoint = await introspectionEndpoint();
    const verify = introspectionVerifier({ endpoint: endpoint.url, clientId: 'api', clientSecret: 's', audience: AUDIENCE, timeout: 5_000 });
    // Under the 64 KiB every verifier reads, over what this endpoint takes.
    const large = 'a'.repeat(LIMIT + 1);
    expect(await outcomeOf(verify(large))).toMatchObject({ kind: 'refused', description: TOKEN_REFUSALS.tooLarge });
    expect(endpoint.forms()).toBe(0);
    expect((await outcomeOf(verify('small-token'))).kind).toBe('accepted');
    expect(endpoint.forms()).toBe(1);
  });

  it('over HTTP, the client is answered 401 with a Bearer challenge naming invalid_token, not 503', async () => {
    const endpoint = await introspectionEndpoint();
    const verify = introspectionVerifier({ endpoint: endpoint.url, clientId: 'api', clientSecret: 's', audience: AUDIENCE, timeout: 5_000 });
    const t = initTRPC.context<{ req: IncomingMessage }>().create({ isDev: false });
    const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read you' }, verify });
    const router = t.router({ me: t.procedure.use(auth.withScopes('me')).query(({ ctx }) => ctx.principal.subject) });
    const api = createHTTPServer({ router, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() });
    servers.push(api);
    api.listen(0, '127.0.0.1');
    const port = await listening(api);
    const call = (token: string) => fetch(`http://127.0.0.1:${port}/me`, { headers: { authorization: `Bearer ${token}` } });

    const refused = await call('b'.repeat(LIMIT + 1));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(refused.headers.get('www-authenticate')).toContain(TOKEN_REFUSALS.tooLarge);
    await refused.body?.cancel();
    const accepted = await call('small-token');
    expect(accepted.status).toBe(200);
    expect(((await accepted.json()) as { result: { data: unknown } }).result.data).toBe('alice');
  });
});
