import { describe, expect, it, vi } from 'vitest';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

// A method a resource does not serve is a 405 naming those it does (RFC 9110 §15.5.6), on every
// face of the demo: the REST routes, tRPC, the interaction pages and their stylesheet
// (docs/contract.md#body-limits). A path nothing serves stays a 404.
const demo = demoForThisFile();

const send = async (method: string, path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${demo.url}${path}`, { method, headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

describe('the REST routes', () => {
  it.each([
    ['GET', '/api/token', 'POST'],
    ['PUT', '/api/token', 'POST'],
    ['DELETE', '/api/token', 'POST'],
    ['OPTIONS', '/api/token', 'POST'],
    ['GET', '/api/revoke', 'POST'],
    ['PUT', '/api/users/me', 'GET, HEAD'],
    ['DELETE', '/api/users/me/items', 'GET, HEAD'],
  ])('%s %s is a 405 with Allow: %s, not a 404', async (method, path, allow) => {
    const answer = await send(method, path);
    expect(answer.status, answer.text).toBe(405);
    expect(answer.headers.get('allow')).toBe(allow);
    const tokenPath = path === '/api/token' || path === '/api/revoke';
    // The token and revocation endpoints' every refusal is RFC 6749 §5.2's body (docs/contract.md#token-responses).
    expect(JSON.parse(answer.text)).toEqual(
      tokenPath
        ? { error: 'invalid_request', error_description: `${method} requests are not supported` }
        : { message: `${method} requests are not supported`, code: 'METHOD_NOT_SUPPORTED' },
    );
    // The token and revocation endpoints' every answer is not stored (RFC 6749 §5.1).
    if (tokenPath) expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('a path no route has stays a 404', async () => {
    const answer = await send('PUT', '/api/nothing');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('allow')).toBeNull();
  });
});

describe('tRPC', () => {
  it.each([
    ['/trpc/users.me', 'GET'],
    ['/trpc/auth.token', 'POST'],
  ])('OPTIONS %s (a CORS preflight) is a 405 with Allow: %s, not a 415 "Missing content-type header"', async (path, allow) => {
    const answer = await send('OPTIONS', path, { origin: 'https://app.example', 'access-control-request-method': 'GET' });
    expect(answer.status, answer.text).toBe(405);
    expect(answer.headers.get('allow')).toBe(allow);
    expect(answer.text).toContain('METHOD_NOT_SUPPORTED');
  });
});

describe("the interaction pages' stylesheet", () => {
  it.each(['POST', 'PUT', 'DELETE', 'OPTIONS'])('%s /interaction/style.css is a 405 with Allow: GET, HEAD', async (method) => {
    const answer = await send(method, '/interaction/style.css');
    expect(answer.status, answer.text.slice(0, 80)).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD');
    expect(answer.text).not.toContain('font-family');
  });

  it('GET is the stylesheet; HEAD its headers without it', async () => {
    const get = await send('GET', '/interaction/style.css');
    expect(get.status).toBe(200);
    expect(get.text).toContain('font-family');
    const head = await send('HEAD', '/interaction/style.css');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
  });
});

describe('the interaction pages', () => {
  it('a page (GET) asked with POST is a 405 naming GET and HEAD; a form (POST) asked with GET, one naming POST', async () => {
    const page = await send('POST', '/interaction/some-uid');
    expect(page.status).toBe(405);
    expect(page.headers.get('allow')).toBe('GET, HEAD');
    const form = await send('GET', '/interaction/some-uid/login');
    expect(form.status).toBe(405);
    expect(form.headers.get('allow')).toBe('POST');
  });
});
