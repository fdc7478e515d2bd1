/**
 * An open-loop run in a process of its own: `node dist/http/load/open-loop-main.js '<request>'`
 * takes an {@link OpenLoopRequest} as JSON and prints its {@link LoadResult} as one JSON line.
 * Its schedule keeps a core busy, so it never shares the bench's event loop or a server's.
 * @module
 */
import { runOpenLoop, type OpenLoopRequest } from './open-loop.js';

const request = JSON.parse(process.argv[2] ?? '{}') as OpenLoopRequest;
const result = await runOpenLoop(request);
process.stdout.write(`${JSON.stringify(result)}\n`);
