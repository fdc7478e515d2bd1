/**
 * Debian's Chromium for the browser tests (apps/demo/scripts/install-chromium.sh installs it;
 * playwright-core downloads nothing): where it is, how it is launched, and whether it is there.
 * Without it the browser tests are skipped with a note, and under CI they fail.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { expect, it } from 'vitest';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

/** Whether Chromium is there; without it, a note (`what`: the tests named in it), or under CI a failing test. */
export function hasChromium(what: string): boolean {
  const present = existsSync(CHROMIUM);
  if (!present && !CI) process.stderr.write(`${what} skipped: no Chromium at ${CHROMIUM}; run bash apps/demo/scripts/install-chromium.sh to run them\n`);
  if (!present && CI) {
    it(`has Chromium for the ${what}, under CI`, () => {
      expect.fail(`${CHROMIUM} is missing: CI runs the browser tests (bash apps/demo/scripts/install-chromium.sh)`);
    });
  }
  return present;
}

/** Chromium, headless, launched as the browser tests launch it. */
export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
