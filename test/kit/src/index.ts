/**
 * `@trpc-oauth2/test-kit`: what the test suites of every package share. Nothing here depends on a
 * package of the repository, so each package's tests can import it without a cycle.
 * @module
 */
export { captureOutput, type CapturedOutput } from './capture-output.js';
export { exportedDocs, missingDocs, type ExportedDoc } from './exported-docs.js';
export * from './form-cases.js';
export * from './header-table.js';
export * from './dpop-table.js';
export * from './raw-http.js';
export { closing, listening, servingOnLoopback } from './serve.js';
export { serveKeySet, type LoopbackKeySet, type TokenOptions } from './key-set.js';
export * from './hostile.js';
export * from './hostile-requests.js';
export { MB, SPREAD_GETS_OWN_CLASS, expectSharedClass, heapInUse, leftOutsideYoung } from './young-garbage.js';
