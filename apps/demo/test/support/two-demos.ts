import { rm } from 'node:fs/promises';
import { freePort } from '../../soak/instances.js';
import type { StartOptions } from '../../src/server/start.js';
import { startTestDemo, tempDataDir, type TestDemo } from './demo-server.js';
import { startPostgres } from './postgres.js';

/** Two demo servers sharing one PostgreSQL server, as behind one load balancer. */
export interface TwoDemos {
  readonly a: TestDemo;
  readonly b: TestDemo;
  /** The one public URL both answer for (A's address): one issuer, one set of redirect URIs, the origin DPoP proofs name. */
  readonly origin: string;
  /** The database both use, for a test that reads its tables. */
  readonly databaseUrl: string;
  /** Stops both servers and the PostgreSQL server, and deletes their data directory. */
  stop(): Promise<void>;
}

/**
 * Starts a PostgreSQL server from `bin` and two demo servers on it, with one data directory (the
 * signing key both sign and verify with) and one public URL, A's address. They start together:
 * migrating and seeding at once must not fail either. `options` (given the public URL) are both
 * servers' other settings.
 *
 * @example
 * ```ts
 * demos = await startTwoDemos(bin, () => ({ refreshTokenTtlSeconds: 2 }));
 * ```
 */
export async function startTwoDemos(bin: string, options: (origin: string) => StartOptions = () => ({})): Promise<TwoDemos> {
  const postgres = await startPostgres(bin);
  const dataDir = await tempDataDir();
  const started: TestDemo[] = [];
  const stop = async () => {
    await Promise.all(started.map((demo) => demo.stop()));
    await postgres.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const shared = { ...options(origin), publicUrl: origin, databaseUrl: postgres.url };
    // Both settled before going on: a server still starting when the other failed is stopped too.
    const starts = await Promise.allSettled([startTestDemo(dataDir, { ...shared, port }), startTestDemo(dataDir, shared)]);
    for (const start of starts) if (start.status === 'fulfilled') started.push(start.value);
    const failed = starts.find((start) => start.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const [a, b] = started as [TestDemo, TestDemo];
    return { a, b, origin, databaseUrl: postgres.url, stop };
  } catch (error) {
    // Whatever started is stopped: a failed start leaves no server behind.
    await Promise.allSettled([stop()]);
    throw error;
  }
}
