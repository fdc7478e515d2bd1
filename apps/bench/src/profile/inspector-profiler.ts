import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

let session: Session | undefined;

const post = (method: string, params?: object) =>
  new Promise<unknown>((resolve, reject) => {
    if (session === undefined) {
      session = new Session();
      session.connect();
    }
    session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result)));
  });

/**
 * Starts V8's sampling CPU profiler in this process (what `node --cpu-prof` runs), sampling
 * every 250 µs: four times Node's default, still a small overhead.
 *
 * @example
 * ```ts
 * await startProfiler();
 * await work();
 * await stopProfiler('/tmp/work.cpuprofile');
 * ```
 */
export async function startProfiler(): Promise<void> {
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 250 });
  await post('Profiler.start');
}

/**
 * Stops the profiler and writes the profile to `file` as a `.cpuprofile` (Chrome DevTools opens it).
 *
 * @example
 * ```ts
 * await stopProfiler('/tmp/work.cpuprofile');
 * ```
 */
export async function stopProfiler(file: string): Promise<void> {
  const { profile } = (await post('Profiler.stop')) as { profile: unknown };
  writeFileSync(file, JSON.stringify(profile));
}
