import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { soakArguments } from './options.js';
import { formatSoakReport, missedTargets } from './report.js';
import { runSoak } from './run.js';
import { forkSoakServer, type SoakServerProcess } from './server-process.js';

// `npm run soak`: starts the demo in a child process on 127.0.0.1 with a temporary data
// directory, soaks it, prints the report and exits non-zero when a target is missed.
const { options, jsonFile } = soakArguments(process.argv.slice(2));
const dataDir = await mkdtemp(join(tmpdir(), 'trpc-oauth2-soak-'));
let server: SoakServerProcess | undefined;
try {
  const cpu = cpus();
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}, ${process.platform}`);
  server = await forkSoakServer(dataDir);
  console.log(`soak server: pid ${server.pid}, ${server.url}, data in ${dataDir}`);
  const report = await runSoak(server, options, (line) => console.log(line));
  for (const line of formatSoakReport(report)) console.log(line);
  if (jsonFile !== undefined) await writeFile(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  const missed = missedTargets(report);
  console.log(missed.length === 0 ? 'targets met: 0 errors, 0 5xx, 0 unexpected statuses, RSS growth under 10%' : `targets missed: ${missed.join('; ')}`);
  process.exitCode = missed.length === 0 ? 0 : 1;
} catch (error) {
  console.error('soak failed:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
}
