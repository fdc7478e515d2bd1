import { afterAll, afterEach, beforeAll, expect } from 'vitest';

/**
 * Fails every test of the calling `describe` during which an exception went uncaught. A database
 * connection's error no one listens for is one: in a server, it would end the process.
 *
 * @example
 * ```ts
 * describe('the store when PostgreSQL goes away', () => {
 *   expectNoUncaughtExceptions();
 * });
 * ```
 */
export function expectNoUncaughtExceptions(): void {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);
  beforeAll(() => void process.on('uncaughtException', onUncaught));
  afterAll(() => void process.off('uncaughtException', onUncaught));
  afterEach(() => {
    expect(uncaught.splice(0)).toEqual([]);
  });
}
