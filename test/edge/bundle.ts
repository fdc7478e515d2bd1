import { isBuiltin } from 'node:module';
import { build, type Plugin } from 'esbuild';

/**
 * Node's built-in modules as an edge runtime has them: absent. trpc-to-openapi's Node adapters and
 * tRPC's Node helpers (reached through the modules they share with the fetch adapters) import
 * them at the top without using them on the fetch path; each becomes a module whose every member
 * throws when called, so a Node API on the path a request takes fails the test.
 */
const absentNodeBuiltins: Plugin = {
  name: 'absent-node-builtins',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => (isBuiltin(args.path) ? { path: args.path, namespace: 'node-builtin' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      loader: 'js',
      contents: `module.exports = new Proxy({}, {
        get: (_, key) => key === '__esModule' || typeof key === 'symbol' ? undefined : () => {
          throw new Error(${JSON.stringify(args.path)} + '.' + String(key) + ' is a Node API: there is none on the edge');
        },
      });`,
    }));
  },
};

/**
 * `entry` and what it imports, the packages of this repository from their built `dist`, bundled
 * into one script as an edge platform bundles a function: for the browser-like platform, in
 * production mode.
 */
export async function bundleForTheEdge(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    conditions: ['edge-light', 'worker', 'browser'],
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [absentNodeBuiltins],
    logLevel: 'error',
  });
  return result.outputFiles[0]!.text;
}
