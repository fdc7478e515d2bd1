import type { MemorySample } from './run.js';

/**
 * What `npm run soak` asks its server process over the IPC channel: its memory (after a full
 * garbage collection, which the process exposes for this alone), or to stop.
 *
 * @example
 * ```ts
 * child.send({ type: 'memory' } satisfies SoakCommand);
 * ```
 */
export type SoakCommand = { type: 'memory' } | { type: 'stop' };

/**
 * What the soak server process tells `npm run soak`: it is listening at `url`, or its memory.
 *
 * @example
 * ```ts
 * child.once('message', (message: SoakServerMessage) => message.type === 'ready' && console.log(message.url));
 * ```
 */
export type SoakServerMessage = { type: 'ready'; url: string } | ({ type: 'memory' } & MemorySample);
