import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { startSoakInstances, type SoakInstances } from './instances.js';
import { soakArguments } from './options.js';
import { formatSoakReport, missedTargets } from './report.js';
import { runSoak } from './run.js';
import { forkSoakServer } from './server-process.js';

// `npm run soak`: starts the demo in child processes on 127.0.0.1, each with a temporary data
// directory (several: on a PostgreSQL server started for them), soaks them, prints the report
// and exits non-zero when a target is missed. Everything started is stopped and deleted.
let parsed: ReturnType<typeof soakArguments>;
try {
  parsed = soakArguments(process.argv.slice(2));
} catch (error) {
  console.error(`soak: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
const { options, jsonFile } = parsed;
let started: SoakInstances | undefined;
// Interrupted (Ctrl-C), or its output closed (`| head`): stop the servers and PostgreSQL and
// delete their directories all the same, then exit.
const abandon = (code: number) => {
  void Promise.resolve(started?.stop()).finally(() => process.exit(code));
};
process.once('SIGINT', () => abandon(130));
process.once('SIGTERM', () => abandon(143));
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') abandon(process.exitCode === undefined ? 1 : Number(process.exitCode));
});
try {
  const cpu = cpus();
  const load = () => loadavg().map((value) => value.toFixed(2)).join(', ');
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}, ${process.platform}; load average ${load()}`);
  started = await startSoakInstances(
    options.instances ?? 1,
    ({ dataDir, databaseUrl, port, publicUrl }) =>
      forkSoakServer(dataDir, {
        PORT: String(port),
        ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
        ...(publicUrl === undefined ? {} : { PUBLIC_URL: publicUrl }),
      }),
    (line) => console.log(line),
  );
  started.servers.forEach((server, i) => console.log(`soak server ${String.fromCharCode(65 + i)}: pid ${'pid' in server ? server.pid : '?'}, ${server.url}, data in ${started!.dataDirs[i]}`));
  const report = await runSoak(started.servers, options, (line) => console.log(line));
  console.log(`load average after the run: ${load()}`);
  for (const line of formatSoakReport(report)) console.log(line);
  if (jsonFile !== undefined) await writeFile(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  const missed = missedTargets(report);
  console.log(missed.length === 0 ? 'targets met: 0 errors, 0 5xx, 0 unexpected statuses, RSS growth under 10%' : `targets missed: ${missed.join('; ')}`);
  process.exitCode = missed.length === 0 ? 0 : 1;
} catch (error) {
  console.error('soak failed:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await started?.stop();
}
