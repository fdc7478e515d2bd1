import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { PasswordQueue } from '../../src/store/password-queue.js';
import { CookieSession, pkcePair, swaggerAuthorizeUrl } from '../support/authorization-code.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

// A client that goes away while it sends the login, consent or cancel form is the client's doing:
// the interaction pages answer it nothing and log nothing, as /api/token and /oidc/token do. A
// fault of the server on the same pages is still logged.

/** The password checks of this server: they fail (a fault of the server) while `failing` is set. */
class FailingQueue extends PasswordQueue {
  failing = false;

  override run<T>(key: object, task: () => Promise<T>): Promise<T> {
    return this.failing ? Promise.reject(new Error('password store unreachable')) : super.run(key, task);
  }
}
const passwords = new FailingQueue();
const demo = demoForThisFile({ passwordQueue: passwords });

let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  errors = vi.spyOn(console, 'error');
});
afterEach(() => {
  errors.mockRestore();
  passwords.failing = false;
});

const logged = () => errors.mock.calls.map((call) => call.join(' '));

/** A browser at the login page of a new interaction. */
async function atLogin(): Promise<{ session: CookieSession; uid: string }> {
  const session = new CookieSession();
  const pkce = pkcePair();
  const start = await session.follow(swaggerAuthorizeUrl(demo.url, pkce.challenge));
  expect(await start.response.text()).toContain('/login"');
  return { session, uid: /\/interaction\/([^/?]+)/.exec(start.url)![1]! };
}

/** A browser at the consent page, alice logged in. */
async function atConsent(): Promise<{ session: CookieSession; uid: string }> {
  const { session, uid } = await atLogin();
  const step = await session.follow(`${demo.url}/interaction/${uid}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'username=alice&password=wonderland',
  });
  expect(await step.response.text()).toContain('/consent"');
  return { session, uid: /\/interaction\/([^/?]+)/.exec(step.url)![1]! };
}

/** The session's cookies as a `Cookie` header (the session keeps them by name, privately). */
const cookieOf = (session: CookieSession) =>
  [...(session as unknown as { cookies: Map<string, string> }).cookies].map(([name, value]) => `${name}=${value}`).join('; ');

/** Sends the head and the start of a 100-byte form, then drops the connection; resolves once the server has had time to react. */
function abandon(path: string, cookie: string): Promise<void> {
  const { port } = new URL(demo.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Cookie: ${cookie}`, 'Content-Type: application/x-www-form-urlencoded', 'Content-Length: 100'];
    socket.write(`${head.join('\r\n')}\r\n\r\nusername=al`);
    setTimeout(() => {
      socket.destroy();
      setTimeout(resolve, 500);
    }, 300);
  });
}

describe('a form the client abandons mid-body on the interaction pages', () => {
  it('the login form: nothing is logged', async () => {
    const { session, uid } = await atLogin();
    await abandon(`/interaction/${uid}/login`, cookieOf(session));
    expect(logged()).toEqual([]);
  });

  it('the consent form: nothing is logged', async () => {
    const { session, uid } = await atConsent();
    await abandon(`/interaction/${uid}/consent`, cookieOf(session));
    expect(logged()).toEqual([]);
  });

  it('the cancel button (/abort): nothing is logged', async () => {
    const { session, uid } = await atLogin();
    await abandon(`/interaction/${uid}/abort`, cookieOf(session));
    expect(logged()).toEqual([]);
  });

  it('the interaction goes on: the same login, sent whole, still logs alice in', async () => {
    const { session, uid } = await atLogin();
    await abandon(`/interaction/${uid}/login`, cookieOf(session));
    const step = await session.follow(`${demo.url}/interaction/${uid}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=wonderland',
    });
    expect(await step.response.text()).toContain('/consent"');
    expect(logged()).toEqual([]);
  });

  it('control: the same abandoned body on /api/token and /oidc/token prints nothing either', async () => {
    await abandon('/api/token', '');
    await abandon('/oidc/token', '');
    expect(logged()).toEqual([]);
  });
});

describe('a fault of the server on the interaction pages', () => {
  it('is still answered 500 and logged', async () => {
    const { session, uid } = await atLogin();
    errors.mockImplementation(() => {});
    passwords.failing = true;
    const answer = await session.fetch(`${demo.url}/interaction/${uid}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=wonderland',
    });
    expect(answer.status).toBe(500);
    expect(await answer.text()).toContain('Something went wrong');
    expect(logged()).toEqual(['interaction failed: Error']);
  });
});
