import { beforeAll, describe, expect, it } from 'vitest';
import { soakRequests } from '../../soak/mix.js';
import { rawSoakRequests } from '../../soak/raw-requests.js';
import { missedTargets } from '../../soak/report.js';
import { runSoak, type SoakReport } from '../../soak/run.js';
import { SOAK_LOGIN_THROTTLE, SOAK_PASSWORD_BUDGET } from '../../soak/server-settings.js';
import { demoForThisFile, SERVER_TIMEOUT_MS } from '../support/demo-server.js';

// The short soak `npm test` runs: the real server on 127.0.0.1 with the soak's throttle, a few
// seconds of the full mix and the login loop. RSS over a few seconds is noise, so only the
// stable targets are asserted; `npm run soak` measures memory over a minute (RELIABILITY.md).
const demo = demoForThisFile({ loginThrottle: SOAK_LOGIN_THROTTLE, passwordBudget: SOAK_PASSWORD_BUDGET });
let report: SoakReport;
beforeAll(async () => {
  const memory = async () => ({ ...process.memoryUsage(), collected: false });
  report = await runSoak({ url: demo.url, memory }, {
    durationSeconds: 4,
    warmupSeconds: 1,
    connections: 10,
    loginConcurrency: 1,
    // A connection left hanging (a body not drained, say) must time out within the run; on a
    // busy machine an answer can take a second or more, hence not less.
    requestTimeoutSeconds: 3,
    // Memory is not asserted over a few seconds: no need to wait for it to settle.
    settleSeconds: 0,
  });
}, SERVER_TIMEOUT_MS);

describe('a short soak of the demo', () => {
  it('gets a response to every request, never a 5xx, never a status the mix does not allow', () => {
    expect({ errors: report.run.errors, serverErrors: report.run.serverErrors, unexpected: report.run.unexpected }).toEqual({
      errors: 0,
      serverErrors: 0,
      unexpected: 0,
    });
    expect(report.run.errorMessages).toEqual([]);
    expect(missedTargets(report, { checkMemory: false })).toEqual([]);
  });

  it('ran the whole mix, and logins and refreshes beside it', () => {
    const mix = soakRequests({ alice: 'a.b.c', bob: 'd.e.f' }).map((request) => request.name);
    expect(Object.keys(report.run.byRequest)).toEqual(expect.arrayContaining(mix));
    // The raw requests (bodies declared as 256 MiB) go one at a time: the first ones at least.
    const raw = rawSoakRequests().map((request) => request.name);
    expect(Object.keys(report.run.byRequest)).toEqual(expect.arrayContaining(raw.slice(0, 2)));
    expect(report.instances).toHaveLength(1);
    expect(report.run.requests).toBeGreaterThan(mix.length);
    // Logins take a deliberately slow hash each: count the warm-up's too.
    const logins = { ...report.warmup.byRequest, ...report.run.byRequest };
    const granted = (name: string) => (report.warmup.byRequest[name]?.['200'] ?? 0) + (report.run.byRequest[name]?.['200'] ?? 0);
    expect(Object.keys(logins)).toContain('login alice (REST, client demo-cli)');
    expect(granted('login alice (REST, client demo-cli)')).toBeGreaterThan(0);
    expect(granted('refresh (rotates)')).toBeGreaterThan(0);
    expect({ errors: report.warmup.errors, serverErrors: report.warmup.serverErrors, unexpected: report.warmup.unexpected }).toEqual({
      errors: 0,
      serverErrors: 0,
      unexpected: 0,
    });
  });
});
