/**
 * What one WebSocket client may ask of the server (docs/contract.md#body-limits for the HTTP
 * faces' batch limit; the demo's README for the WebSocket face): a message holds a batch of at
 * most 20 calls, as an HTTP request does, and a client that stops reading is disconnected once it
 * leaves a few MiB unread, instead of the server queueing answers for it without end.
 */
import WebSocket from 'ws';
import { describe, expect, it, vi } from 'vitest';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { login, request } from '../support/http.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();

/** A WebSocket to the demo's tRPC endpoint, its connection params sent, and the answers it receives. */
async function connect() {
  const { access_token: token } = await login(demo.url, 'alice', 'wonderland');
  const socket = new WebSocket(`${demo.url.replace('http', 'ws')}/trpc?connectionParams=1`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ method: 'connectionParams', data: { authorization: `Bearer ${token}` } }));
  // The router's transformer (superjson) wraps each error as `{ json: … }`.
  const answers: { id: number; result?: unknown; error?: { json: { message: string } } }[] = [];
  socket.on('message', (data) => {
    const text = String(data);
    if (text !== 'PING') answers.push(...[JSON.parse(text)].flat());
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, answers, closed };
}

/** `count` calls of `path` with ids from `from`, their input as superjson writes it (none: no input). */
const calls = (count: number, from: number, path: string, method = 'query', input?: unknown) =>
  Array.from({ length: count }, (_, i) => ({ id: from + i, method, params: { path, input: input === undefined ? {} : { json: input } } }));

const until = async (condition: () => boolean, ms = 10_000) => {
  for (const end = Date.now() + ms; !condition() && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
};

describe('the WebSocket face', () => {
  it('runs a batch of 20 calls in one message, and refuses every call of a batch of 21', async () => {
    const { socket, answers } = await connect();
    socket.send(JSON.stringify(calls(20, 1, 'users.me')));
    expect(await until(() => answers.length === 20)).toBe(true);
    expect(answers.every((answer) => answer.result !== undefined)).toBe(true);
    socket.send(JSON.stringify(calls(21, 100, 'users.me')));
    expect(await until(() => answers.length === 41)).toBe(true);
    expect(answers.slice(20).map((answer) => answer.error?.json.message)).toEqual(Array(21).fill('Batch call exceeds maximum size'));
    socket.close();
  });

  it('disconnects a client that stops reading once it leaves a few MiB unread, and keeps serving others', async () => {
    const { socket, answers, closed } = await connect();
    // Answers of about 20 KB each: 100 items of 200 characters.
    for (let from = 0; from < 100; from += 20) socket.send(JSON.stringify(calls(20, 1_000 + from, 'users.addItem', 'mutation', { title: 'x'.repeat(200) })));
    expect(await until(() => answers.length === 100, 30_000)).toBe(true);
    const raw = (socket as unknown as { _socket: import('node:net').Socket })._socket;
    raw.pause(); // reads nothing from now on
    const sent = 60 * 20; // 60 messages of 20 queries: about 24 MB of answers
    for (let message = 0; message < 60; message++) socket.send(JSON.stringify(calls(20, 10_000 + message * 20, 'users.items')));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    raw.resume();
    const ended = await Promise.race([closed.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 15_000))]);
    expect(ended).toBe('closed');
    // It was closed with answers left unsent, not after queueing them all.
    expect(answers.length - 100).toBeLessThan(sent);
    expect((await request(`${demo.url}/openapi.json`)).status).toBe(200);
  });
});
