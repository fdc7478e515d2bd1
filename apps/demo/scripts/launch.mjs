// `npm start` and `npm run client`: builds the demo and the packages it uses (quietly: turbo's
// output only when the build fails), then runs the program as a child of this process and passes
// on SIGTERM, SIGINT and SIGHUP, exiting as it exits. A process manager or a container signals
// the process it started, npm's; npm passes the signal to this one, and this one to the server,
// so nothing is left running on the port.
//
//   node apps/demo/scripts/launch.mjs server          # what `npm start` runs
//   node apps/demo/scripts/launch.mjs client -- login # what `npm run client -- login` runs
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const programs = {
  server: { file: 'apps/demo/dist/server/main.js', announce: 'Building the demo and its packages (the first start takes a minute or two)…' },
  client: { file: 'apps/demo/dist/client/main.js', announce: undefined },
};
const [name, ...rawArgs] = process.argv.slice(2);
const program = programs[name];
if (program === undefined) {
  console.error(`usage: launch.mjs <${Object.keys(programs).join('|')}> [arguments]`);
  process.exit(2);
}
const args = rawArgs[0] === '--' ? rawArgs.slice(1) : rawArgs;

let child;
let stopping;
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'];
for (const signal of SIGNALS) {
  process.on(signal, () => {
    stopping = signal;
    // The child may already have it (a terminal sends SIGINT to the whole group): once more is harmless.
    if (child !== undefined && child.exitCode === null) child.kill(signal);
    else if (child === undefined) process.exit(128 + (signal === 'SIGHUP' ? 1 : signal === 'SIGINT' ? 2 : 15));
  });
}

const run = (file, argv, options) =>
  new Promise((resolve, reject) => {
    child = spawn(file, argv, { cwd: root, ...options });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, child }));
  });

if (program.announce !== undefined) console.log(program.announce);
const output = [];
const build = run(process.execPath, [`${root}node_modules/turbo/bin/turbo`, 'run', 'build', '--filter=@trpc-oauth2/demo...', '--output-logs=errors-only'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
child.stdout.on('data', (chunk) => output.push(chunk));
child.stderr.on('data', (chunk) => output.push(chunk));
const built = await build;
if (built.code !== 0 || stopping !== undefined) {
  if (stopping === undefined) {
    process.stderr.write(Buffer.concat(output));
    console.error('The build failed (above).');
  }
  process.exit(built.code ?? 1);
}
child = undefined;
const ran = await run(process.execPath, [`${root}${program.file}`, ...args], { stdio: 'inherit', cwd: process.cwd() });
process.exitCode = ran.code ?? 128 + (ran.signal === 'SIGINT' ? 2 : ran.signal === 'SIGHUP' ? 1 : 15);
