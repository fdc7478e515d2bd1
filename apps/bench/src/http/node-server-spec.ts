import { fileURLToPath } from 'node:url';
import type { Face } from './faces.js';
import type { ServerSpec } from './server-process.js';

const serverMain = fileURLToPath(new URL('../../dist/http/server-main.js', import.meta.url));

/**
 * How to start one of our faces as its own Node process, from the compiled `dist/`.
 *
 * @example
 * ```ts
 * const server = await startServer(nodeServerSpec('rest'));
 * ```
 */
export const nodeServerSpec = (face: Face): ServerSpec => ({
  name: face,
  command: process.execPath,
  args: ['--expose-gc', serverMain, face],
  // What a deployment runs with; trpc-to-openapi skips its start-up document check under it.
  env: { NODE_ENV: 'production' },
  answersCommands: true,
});
