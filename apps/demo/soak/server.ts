import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { configFromEnv } from '../src/server/config.js';
import { start } from '../src/server/start.js';
import type { SoakCommand, SoakServerMessage } from './ipc-messages.js';
import { SOAK_LOGIN_THROTTLE, SOAK_PASSWORD_BUDGET } from './server-settings.js';

// The demo server as `npm run soak` runs it: a child process on 127.0.0.1, a port the OS picks,
// the soak's login throttle. Its memory, and the full garbage collection before reading it
// (node's --expose-gc, given by the parent), are reachable through the IPC channel only: no
// HTTP route exposes them, and without the channel this script refuses to start.
const send = process.send?.bind(process) as ((message: SoakServerMessage) => boolean) | undefined;
if (send === undefined) {
  console.error('soak/server.js is started by `npm run soak` (it needs the IPC channel)');
  process.exit(1);
}

// PORT and PUBLIC_URL come from the soak (servers sharing a public URL), else a port the OS picks.
const demo = await start({ ...configFromEnv(), host: '127.0.0.1', loginThrottle: SOAK_LOGIN_THROTTLE, passwordBudget: SOAK_PASSWORD_BUDGET });
const collect = globalThis.gc;

const stop = () => demo.close().finally(() => process.exit(0));

process.on('message', async (command: SoakCommand) => {
  if (command.type === 'stop') return stop();
  if (collect !== undefined) {
    // Three times, with time between: what a collection finds dead may still be held until its
    // FinalizationRegistry callbacks have run (each Fetch Request made with a `signal` registers
    // one), and they run on later turns of the event loop, not inside the collection.
    for (let round = 0; round < 3; round += 1) {
      collect();
      await nextTurn();
      await sleep(50);
    }
    collect();
  }
  const { rss, heapUsed } = process.memoryUsage();
  send({ type: 'memory', rss, heapUsed, collected: collect !== undefined });
});
// The parent is gone: nobody will stop this server, so it stops itself.
process.on('disconnect', stop);
send({ type: 'ready', url: demo.url });
