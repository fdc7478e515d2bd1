/**
 * A bench server process: `node dist/http/server-main.js <face>` serves one face on 127.0.0.1,
 * prints `{"port": n}` on its first line, answers the commands of `answerCommand` on stdin, and
 * stops on SIGTERM or when its stdin closes. Each server runs in its own process so that the
 * load generator and the bench itself never share its event loop.
 * @module
 */
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { FACES, startFace, type Face } from './faces.js';
import { answerCommand } from './server-commands.js';

const face = process.argv[2] as Face;
if (!FACES.includes(face)) {
  process.stderr.write(`usage: server-main.js <${FACES.join('|')}>\n`);
  process.exit(2);
}
const server = await startFace(face);
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
// The bench holds our stdin open: its end means the bench is gone, whatever killed it.
process.stdin.on('end', stop);
createInterface({ input: process.stdin }).on('line', (line) => {
  answerCommand(line).then(
    (answer) => process.stdout.write(`${JSON.stringify(answer ?? { error: `unknown command ${JSON.stringify(line)}` })}\n`),
    (error: Error) => process.stdout.write(`${JSON.stringify({ error: error.message })}\n`),
  );
});
