import { expect, it } from 'vitest';
import { findPostgresBin } from '../../soak/postgres.js';

// The throwaway PostgreSQL server of the two-instance tests is the soak's own (`npm run soak --
// --instances 2` starts one the same way): one helper for both.
export { findPostgresBin, startPostgres, type TestPostgres } from '../../soak/postgres.js';

/**
 * The PostgreSQL binaries `what` (the calling test file's tests) runs on, `undefined` when not
 * installed: then `what` is skipped with a warning, except in CI, where the calling file gets a
 * failing test instead (CI installs PostgreSQL).
 */
export async function postgresBinForTests(what: string): Promise<string | undefined> {
  const bin = await findPostgresBin();
  const inCi = process.env.CI === 'true';
  if (bin === undefined && !inCi) {
    console.warn(`PostgreSQL is not installed (/usr/lib/postgresql/*/bin): ${what} cannot run here (CI installs it).`);
  }
  it.runIf(inCi)(`CI has a PostgreSQL server to run ${what} on`, () => {
    expect(bin, 'install PostgreSQL (apt-get install postgresql): .ci/run does').toBeDefined();
  });
  return bin;
}
