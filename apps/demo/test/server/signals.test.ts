import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../support/demo-server.js';
import { rm } from 'node:fs/promises';

// A process manager or a container signals the process it started: `npm start`'s. The server
// must stop with it, not stay behind holding its port and its data directory.
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const refused = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

async function startNpm(): Promise<{ url: string; exited: Promise<number | null>; pid: number; output: () => string }> {
  const dataDir = await tempDataDir();
  dirs.push(dataDir);
  const child = spawn('npm', ['start'], { cwd: root, env: { ...process.env, PORT: '0', DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const look = setInterval(() => {
      const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (found !== undefined) clearInterval(look), resolve(found);
    }, 100);
    void exited.then(() => (clearInterval(look), reject(new Error(`npm start exited:\n${output}`))));
  });
  return { url, exited, pid: child.pid!, output: () => output };
}

describe('npm start under a process manager', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s to npm stops the server: npm exits and the port is closed', async (signal) => {
    const npm = await startNpm();
    // Says what it does before the build, and where it listens once it does.
    expect(npm.output()).toContain('Building the demo and its packages');
    expect(await refused(npm.url)).toBe(false);
    process.kill(npm.pid, signal);
    const code = await Promise.race([npm.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
    expect(code, npm.output()).not.toBe('still running');
    let closed = false;
    for (let i = 0; i < 50 && !closed; i += 1) {
      closed = await refused(npm.url);
      if (!closed) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(closed, `the server still answers at ${npm.url} after npm exited`).toBe(true);
    expect(npm.output()).toContain(`${signal}: stopping`);
  }, 300_000);
});

describe('npm run client', () => {
  it("prints the client's own output only: the build it runs first stays quiet", async () => {
    const run = (command: string, args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const [launched, direct] = await Promise.all([
      run('npm', ['run', '--silent', 'client', '-w', '@trpc-oauth2/demo', '--', '--help']),
      run(process.execPath, ['apps/demo/dist/client/main.js', '--help']),
    ]);
    expect(direct.code).toBe(0);
    expect(direct.stdout).toContain('login');
    expect(launched).toEqual({ code: 0, stdout: direct.stdout, stderr: direct.stderr });
  });
});
