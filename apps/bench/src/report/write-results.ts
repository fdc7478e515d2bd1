import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderResults } from './render.js';
import type { BenchResults } from './results.js';

/**
 * Where BENCHMARKS.md's latest tables begin; they end at {@link DOC_END}.
 *
 * @example
 * ```ts
 * text.indexOf(DOC_BEGIN);
 * ```
 */
export const DOC_BEGIN = '<!-- bench:results:begin -->';

/**
 * Where BENCHMARKS.md's latest tables end.
 *
 * @example
 * ```ts
 * text.indexOf(DOC_END);
 * ```
 */
export const DOC_END = '<!-- bench:results:end -->';

/**
 * Writes `bench-<time>.json` and `latest.json` / `latest.md` into `dir`; returns the JSON path.
 *
 * @example
 * ```ts
 * writeResults(results, '/repo/bench-results');
 * ```
 */
export function writeResults(results: BenchResults, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const json = `${JSON.stringify(results, null, 2)}\n`;
  const file = join(dir, `bench-${results.mode}-${results.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, json);
  writeFileSync(join(dir, `latest-${results.mode}.json`), json);
  writeFileSync(join(dir, `latest-${results.mode}.md`), renderResults(results, 'markdown'));
  return file;
}

/**
 * Replaces the tables between the markers of `doc` (BENCHMARKS.md) with these results.
 *
 * @example
 * ```ts
 * updateDoc(results, '/repo/BENCHMARKS.md');
 * ```
 */
export function updateDoc(results: BenchResults, doc: string): void {
  const text = readFileSync(doc, 'utf8');
  const begin = text.indexOf(DOC_BEGIN);
  const end = text.indexOf(DOC_END);
  if (begin === -1 || end < begin) throw new Error(`${doc} has no ${DOC_BEGIN} … ${DOC_END} section`);
  writeFileSync(doc, `${text.slice(0, begin + DOC_BEGIN.length)}\n${renderResults(results, 'markdown')}${text.slice(end)}`);
}
