import { describe, expect, it } from 'vitest';
import { FULL, parseOptions, SMOKE, wantsDocUpdate } from '../src/options.js';

describe('bench options', () => {
  it('runs everything with the full budgets by default, and the smoke budgets with --smoke', () => {
    expect(parseOptions([], {})).toEqual(FULL);
    expect(parseOptions([], {}).ltsNode).toBeUndefined();
    expect(parseOptions(['--smoke'], {})).toEqual(SMOKE);
    expect(parseOptions([], { BENCH_SMOKE: '1' })).toEqual(SMOKE);
  });

  it.each([
    { argv: ['--rounds=3'], env: {}, expected: { inProcess: { ...FULL.inProcess, rounds: 3 }, http: { ...FULL.http, rounds: 3 } } },
    { argv: [], env: { BENCH_SECONDS: '5', BENCH_CONNECTIONS: '32' }, expected: { http: { ...FULL.http, seconds: 5, connections: 32 }, profile: { ...FULL.profile, connections: 32 } } },
    { argv: ['--generator=autocannon', '--no-install'], env: {}, expected: { generator: 'autocannon', install: false } },
    { argv: ['--sections=http,profile'], env: { BENCH_SECTIONS: 'in-process' }, expected: { sections: ['http', 'profile'] } },
    { argv: [], env: { BENCH_ONLY: 'cost-rest, bearer', BENCH_PYTHON: '/opt/python3' }, expected: { only: ['cost-rest', 'bearer'], python: '/opt/python3' } },
    { argv: ['--lts-node=/opt/node24/bin/node'], env: { BENCH_LTS_NODE: '/elsewhere/node' }, expected: { ltsNode: '/opt/node24/bin/node' } },
    { argv: [], env: { BENCH_LTS_NODE: '/opt/node24/bin/node' }, expected: { ltsNode: '/opt/node24/bin/node' } },
  ])('reads $argv and $env', ({ argv, env, expected }) => {
    expect(parseOptions(argv, env)).toMatchObject(expected);
  });

  it.each([
    { argv: ['--rounds=0'], message: 'rounds must be a positive number, got "0"' },
    { argv: ['--seconds=soon'], message: 'seconds must be a positive number, got "soon"' },
    { argv: ['--generator=ab'], message: 'generator must be wrk or autocannon, got ab' },
    { argv: ['--sections=http,disk'], message: 'unknown section disk (known: in-process, http, profile)' },
    { argv: ['--fast'], message: 'unknown option --fast (known: smoke, rounds, seconds, connections, generator, python, lts-node, no-install, only, sections, write-doc)' },
    { argv: ['rounds=3'], message: 'unknown argument "rounds=3"' },
  ])('refuses $argv', ({ argv, message }) => {
    expect(() => parseOptions(argv, {})).toThrow(new Error(message));
  });

  it.each([
    { argv: ['--write-doc'], env: {}, expected: true },
    { argv: [], env: { BENCH_WRITE_DOC: '1' }, expected: true },
    { argv: [], env: {}, expected: false },
  ])('writes BENCHMARKS.md for $argv $env: $expected', ({ argv, env, expected }) => {
    expect(wantsDocUpdate(argv, env)).toBe(expected);
  });
});
