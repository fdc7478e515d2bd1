/**
 * `npm run bench` (and `npm run smoke`): runs the benchmarks, prints the tables on stdout,
 * writes the JSON result file into bench-results/ at the repository root, and with
 * `--write-doc` (or `BENCH_WRITE_DOC=1`) puts the tables into BENCHMARKS.md.
 * @module
 */
import { fileURLToPath } from 'node:url';
import { runBench } from './bench.js';
import { parseOptions, wantsDocUpdate } from './options.js';
import { renderResults } from './report/render.js';
import { updateDoc, writeResults } from './report/write-results.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const argv = process.argv.slice(2);

let options;
try {
  options = parseOptions(argv, process.env);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
// A full run keeps its profiles next to its results, to open in Chrome DevTools.
const profileDir = options.mode === 'full' ? `${root}bench-results/profiles` : null;
const results = await runBench({ ...options, profileDir }, process.stderr);
process.stdout.write(renderResults(results, 'text'));
const file = writeResults(results, `${root}bench-results`);
process.stderr.write(`\nresults: ${file}\n`);
if (wantsDocUpdate(argv, process.env)) {
  updateDoc(results, `${root}BENCHMARKS.md`);
  process.stderr.write(`tables written into ${root}BENCHMARKS.md\n`);
}
