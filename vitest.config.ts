import { defineConfig } from 'vitest/config';
import projects from './vitest.workspace.js';

export default defineConfig({
  test: {
    projects,
    // A run that collects no test must fail, never pass quietly.
    passWithNoTests: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
