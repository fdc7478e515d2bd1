import { spawn } from 'node:child_process';
import { runCli } from './cli.js';

// `npm run client -w apps/demo -- <command>`: the command-line client (see --help).
const openBrowser = (url: string) => {
  // The system's opener opens any scheme (file:, smb:, custom protocols): only a web page goes to it.
  // (The login checked the URL already: it is the authorization server's own, on its origin.)
  if (!URL.canParse(url) || !['http:', 'https:'].includes(new URL(url).protocol)) throw new Error('Refused to open a URL that is not http(s).');
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  // Best effort: without a desktop the URL printed above is enough.
  spawn(command, [url], { stdio: 'ignore', detached: true }).on('error', () => {}).unref();
};
// Ctrl-C stops a command that runs until stopped (`watch`), which then closes its connection.
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.exitCode = await runCli(process.argv.slice(2), {
  signal: stop.signal,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
  openBrowser,
});
