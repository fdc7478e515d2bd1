import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_TIMEOUT_MS, tempDataDir } from '../support/demo-server.js';

// The built server as `npm start` runs it (`dist/server/main.js`), configured by HOST alone: no
// PUBLIC_URL, so it names itself (its issuer, its MCP resource) after the address it listens on.
const main = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

interface Run {
  /** Resolves with the URL it prints once listening, or rejects with its output if it exits first. */
  listening: Promise<string>;
  exited: Promise<number | null>;
  output: () => string;
  kill: () => void;
}

async function run(env: Record<string, string>): Promise<Run> {
  const dataDir = await tempDataDir();
  dirs.push(dataDir);
  const { PUBLIC_URL: _unset, ...inherited } = process.env;
  const child = spawn(process.execPath, [main], { env: { ...inherited, DATA_DIR: dataDir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (found !== undefined) resolve(found);
    });
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)));
  });
  listening.catch(() => {});
  return { listening, exited, output: () => output, kill: () => child.kill('SIGTERM') };
}

const listen = (host: string) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });

describe('HOST without PUBLIC_URL', () => {
  it(
    'serves on any loopback address of 127.0.0.0/8 (HOST=127.0.0.2), naming its MCP resource under it',
    async () => {
      const server = await run({ HOST: '127.0.0.2', PORT: '0' });
      try {
        const url = await server.listening;
        expect(url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
        const metadata = await (await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)).json();
        expect(metadata).toMatchObject({ resource: `${url}/mcp` });
      } finally {
        server.kill();
        await server.exited;
      }
    },
    SERVER_TIMEOUT_MS,
  );

  it(
    'refuses a HOST that cannot name the MCP resource before it listens: a clear message, exit 1, the port never opened',
    async () => {
      // ::ffff:127.0.0.1 binds on this machine, but `http://[::ffff:127.0.0.1]` is no loopback URL
      // (@trpc-oauth2/core's secureUrl). The port is held here first: a server that got as far as
      // listening would fail with EADDRINUSE ("The port is in use"), not with the config's message.
      const host = '::ffff:127.0.0.1';
      const held = await listen(host);
      try {
        const { port } = held.address() as { port: number };
        const server = await run({ HOST: host, PORT: String(port) });
        expect(await server.exited, server.output()).toBe(1);
        await expect(server.listening).rejects.toThrow();
        expect(server.output()).toContain(
          'RangeError: HOST must be a loopback address (127.0.0.0/8, ::1, localhost) or 0.0.0.0 or :: when PUBLIC_URL is unset, since the demo then names its issuer and its MCP resource after the address it listens on (http on a loopback host only): set PUBLIC_URL to the https URL clients reach it at, got "::ffff:127.0.0.1"',
        );
        expect(server.output()).not.toContain('The port is in use');
        expect(server.output()).not.toContain('TypeError');
        // One line, no stack.
        expect(server.output()).not.toMatch(/^\s+at /m);
      } finally {
        await new Promise((resolve) => held.close(resolve));
      }
    },
    SERVER_TIMEOUT_MS,
  );

  it(
    'names the port another process holds: a clear message, exit 1',
    async () => {
      const held = await listen('127.0.0.1');
      try {
        const { port } = held.address() as { port: number };
        const server = await run({ HOST: '127.0.0.1', PORT: String(port) });
        expect(await server.exited, server.output()).toBe(1);
        expect(server.output()).toContain(`The port is in use: PORT ${port} on 127.0.0.1 is taken: set PORT to another one.`);
        expect(server.output()).not.toMatch(/^\s+at /m);
      } finally {
        await new Promise((resolve) => held.close(resolve));
      }
    },
    SERVER_TIMEOUT_MS,
  );
});

describe('HOST with PUBLIC_URL', () => {
  it(
    'refuses a HOST that is no address of this machine in one line naming it, exit 1, without a stack',
    async () => {
      // Any HOST goes with a public URL; one that does not resolve fails only when listened on.
      const server = await run({ HOST: 'no-such-host.invalid', PORT: '0', PUBLIC_URL: 'https://demo.example' });
      expect(await server.exited, server.output()).toBe(1);
      await expect(server.listening).rejects.toThrow();
      expect(server.output()).toMatch(/^HOST "no-such-host\.invalid" is not an address of this machine \((ENOTFOUND|EAI_AGAIN)\): set HOST to one of its addresses\.$/m);
      expect(server.output()).not.toMatch(/^\s+at /m);
    },
    SERVER_TIMEOUT_MS,
  );
});
