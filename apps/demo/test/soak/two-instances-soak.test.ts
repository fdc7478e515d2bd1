import { access } from 'node:fs/promises';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSoakInstances, type SoakInstances } from '../../soak/instances.js';
import { rawSoakRequests } from '../../soak/raw-requests.js';
import { missedTargets } from '../../soak/report.js';
import { runSoak, type SoakReport } from '../../soak/run.js';
import { SOAK_LOGIN_THROTTLE, SOAK_PASSWORD_BUDGET } from '../../soak/server-settings.js';
import { start } from '../../src/server/start.js';
import { SERVER_TIMEOUT_MS } from '../support/demo-server.js';
import { postgresBinForTests } from '../support/postgres.js';

// The short two-server soak `npm test` runs: two demo servers, each on its own data directory,
// on one PostgreSQL server the soak starts (as `npm run soak -- --instances 2` does), a few
// seconds of the full mix spread over both, the logins crossing them. Memory is measured only
// by the full run (RELIABILITY.md). See docs/contract.md#token-responses.
const bin = await postgresBinForTests('the two-server soak');

const isListening = (url: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(new URL(url.replace('postgres:', 'http:')).port), '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

describe.skipIf(bin === undefined)('a short soak of two demo servers on one PostgreSQL server', () => {
  let started: SoakInstances;
  let report: SoakReport;
  beforeAll(async () => {
    started = await startSoakInstances(2, async ({ dataDir, databaseUrl, port, publicUrl }) => {
      const demo = await start({ host: '127.0.0.1', port, dataDir, databaseUrl, ...(publicUrl === undefined ? {} : { publicUrl }), loginThrottle: SOAK_LOGIN_THROTTLE, passwordBudget: SOAK_PASSWORD_BUDGET });
      // Both run in this process: memory is not asserted here.
      return { url: demo.url, memory: async () => ({ ...process.memoryUsage(), collected: false }), stop: () => demo.close() };
    });
    report = await runSoak(started.servers, {
      durationSeconds: 4,
      warmupSeconds: 1,
      connections: 10,
      loginConcurrency: 2,
      requestTimeoutSeconds: 3,
      settleSeconds: 0,
    });
  }, 3 * SERVER_TIMEOUT_MS);
  afterAll(() => started?.stop(), SERVER_TIMEOUT_MS);

  it('ran on two servers, each on its own data directory, sharing one PostgreSQL server', () => {
    expect(started.servers).toHaveLength(2);
    expect(new Set(started.dataDirs).size).toBe(2);
    expect(started.databaseUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(report.instances.map((instance) => instance.url)).toEqual(started.servers.map((server) => server.url));
  });

  it('got a response to every request on both servers, never a 5xx, never a status the mix does not allow', () => {
    for (const counts of [report.run, report.warmup, ...report.instances.flatMap(({ run, warmup }) => [run, warmup])]) {
      expect({ errors: counts.errors, serverErrors: counts.serverErrors, unexpected: counts.unexpected, problems: counts.errorMessages }).toEqual({
        errors: 0,
        serverErrors: 0,
        unexpected: 0,
        problems: [],
      });
    }
    expect(missedTargets(report, { checkMemory: false })).toEqual([]);
    for (const instance of report.instances) expect(instance.run.requests).toBeGreaterThan(50);
  });

  it('accepted on each server the access tokens the other issued, and ran the raw requests on both', () => {
    for (const { run } of report.instances) {
      expect(run.byRequest['REST users/me (alice)']?.['200']).toBeGreaterThan(0);
      expect(run.byRequest['tRPC users.me (alice)']?.['200']).toBeGreaterThan(0);
      const raw = rawSoakRequests().map((request) => request.name);
      expect(raw.some((name) => run.byRequest[name]?.['413'] !== undefined)).toBe(true);
    }
  });

  it('raced for codes and refresh tokens of /oidc over both servers, each race with exactly one winner', () => {
    expect(report.races.codes).toBeGreaterThan(0);
    expect(report.races).toMatchObject({ lost: 0, doubled: 0 });
    for (const { run } of report.instances) {
      const answers = run.byRequest['oidc code redeemed in a race'] ?? {};
      expect((answers['200'] ?? 0) + (answers['400'] ?? 0)).toBeGreaterThan(0);
    }
  });

  it('logged in on both servers and refreshed on the other', () => {
    const both = report.instances.map(({ warmup, run }) => {
      const granted = (name: string) => (warmup.byRequest[name]?.['200'] ?? 0) + (run.byRequest[name]?.['200'] ?? 0);
      return { logins: granted('login alice (REST, client demo-cli)'), refreshes: granted('refresh (rotates)') };
    });
    for (const { logins, refreshes } of both) {
      expect(logins).toBeGreaterThan(0);
      expect(refreshes).toBeGreaterThan(0);
    }
  });

  it('stops both servers and PostgreSQL, and deletes their directories', async () => {
    const { servers, dataDirs, databaseUrl } = started;
    await started.stop();
    for (const server of servers) expect(await isListening(server.url)).toBe(false);
    expect(await isListening(databaseUrl!)).toBe(false);
    for (const dir of dataDirs) await expect(access(dir)).rejects.toThrow('ENOENT');
  }, SERVER_TIMEOUT_MS);
});
