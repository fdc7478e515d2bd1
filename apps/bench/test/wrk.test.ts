import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseGenerator } from '../src/http/load/choose-generator.js';
import type { LoadGenerator } from '../src/http/load/load-generator.js';
import { startServer, type RunningServer } from '../src/http/server-process.js';
import { buildBenchOnce } from './build-once.js';

// wrk runs whole seconds only, so the smoke run uses autocannon; these two one-second runs keep
// the wrk path of the full bench from rotting. wrk is an optional Debian package.
const generator: LoadGenerator = await chooseGenerator({ prefer: 'wrk', install: false, note: () => {} });

describe.runIf(generator.name === 'wrk')('wrk load generator', () => {
  let server: RunningServer;
  beforeAll(async () => {
    buildBenchOnce();
    const serverMain = fileURLToPath(new URL('../dist/http/server-main.js', import.meta.url));
    server = await startServer({ name: 'rest', command: process.execPath, args: [serverMain, 'rest'] });
  }, 120_000);
  afterAll(() => server?.stop());

  it('reads requests, latency percentiles and no error from a good route', async () => {
    const result = await generator.run({ url: `${server.origin}/bare`, method: 'GET', headers: {}, seconds: 1, connections: 2 });
    expect(result.requests).toBeGreaterThan(0);
    expect(result.seconds).toBeGreaterThan(0.5);
    expect(result.rps).toBeCloseTo(result.requests / result.seconds, 6);
    expect(result.p99Us).toBeGreaterThanOrEqual(result.p50Us);
    expect(result.p50Us).toBeGreaterThan(0);
    expect({ non2xx: result.non2xx, errors: result.errors }).toEqual({ non2xx: 0, errors: 0 });
  });

  it('counts error answers, sending the method, headers and form body it is given', async () => {
    // The token route refuses a form without a password with 400: every answer is an error.
    const result = await generator.run({
      url: `${server.origin}/token`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-note': 'quote " backslash \\' },
      body: 'username=alice',
      seconds: 1,
      connections: 2,
    });
    expect(result.requests).toBeGreaterThan(0);
    expect(result.non2xx).toBe(result.requests);
  });
});
