import { defineProject } from 'vitest/config';

/**
 * The test projects. vitest 4 does not read this file by itself: `vitest.config.ts` imports it.
 */
export default [
  defineProject({ test: { name: 'core', root: './packages/core', include: ['test/**/*.test.ts'] } }),
  defineProject({ test: { name: 'openapi', root: './packages/openapi', include: ['test/**/*.test.ts'] } }),
  defineProject({ test: { name: 'jwt', root: './packages/jwt', include: ['test/**/*.test.ts'] } }),
  defineProject({ test: { name: 'demo', root: './apps/demo', include: ['test/**/*.test.ts'] } }),
  defineProject({ test: { name: 'bench', root: './apps/bench', include: ['test/**/*.test.ts'] } }),
  // The fetch entry bundled from the built packages and served by edge-runtime (see test/edge).
  defineProject({ test: { name: 'edge', root: './test/edge', include: ['*.test.ts'] } }),
  // The packed tarballs, linted and installed into a fresh app (see test/packaging).
  defineProject({ test: { name: 'packaging', root: './test/packaging', include: ['*.test.ts'] } }),
];
