import { defineProject } from 'vitest/config';

/**
 * The test projects. vitest 4 does not read this file by itself: `vitest.config.ts` imports it.
 * `extends: true`: each project takes the root timeouts (a project does not inherit them otherwise).
 */
export default [
  defineProject({ extends: true, test: { name: 'core', root: './packages/core', include: ['test/**/*.test.ts'] } }),
  defineProject({ extends: true, test: { name: 'openapi', root: './packages/openapi', include: ['test/**/*.test.ts'] } }),
  defineProject({ extends: true, test: { name: 'jwt', root: './packages/jwt', include: ['test/**/*.test.ts'] } }),
  defineProject({ extends: true, test: { name: 'demo', root: './apps/demo', include: ['test/**/*.test.ts'] } }),
  defineProject({ extends: true, test: { name: 'bench', root: './apps/bench', include: ['test/**/*.test.ts'] } }),
  // The fetch entry bundled from the built packages and served by edge-runtime (see test/edge).
  defineProject({ extends: true, test: { name: 'edge', root: './test/edge', include: ['*.test.ts'] } }),
  // The packed tarballs, linted and installed into a fresh app (see test/packaging).
  defineProject({ extends: true, test: { name: 'packaging', root: './test/packaging', include: ['*.test.ts'] } }),
];
