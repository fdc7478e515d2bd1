import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import projects from './vitest.workspace.js';

export default defineConfig({
  test: {
    projects,
    // A run that collects no test must fail, never pass quietly.
    passWithNoTests: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Most test time is spent waiting on servers (PostgreSQL, the demo, a browser), not on the CPU:
    // vitest's default of one worker fewer than the cores leaves a 2-core machine with one file at a
    // time. Two at least: the suite then takes about 60 % of the time, and stays green under load.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
