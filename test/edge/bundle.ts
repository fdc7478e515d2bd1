import { isBuiltin } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** Where this repository's packages live (the bundle takes their built `dist`, resolved through the workspace's links). */
const OUR_PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));

/**
 * Node's built-in modules as an edge runtime has them: absent. trpc-to-openapi's Node adapters and
 * tRPC's Node helpers (reached through the modules they share with the fetch adapters) import
 * them at the top without using them on the fetch path; each becomes a module whose every member
 * throws when called, so a Node API on the path a request takes fails the test. Our packages get
 * no such stand-in: a builtin one of them imports at the top (`node:crypto`, say) fails the
 * bundle, as it fails an edge platform's build.
 */
const absentNodeBuiltins: Plugin = {
  name: 'absent-node-builtins',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined;
      if (args.importer.startsWith(OUR_PACKAGES)) {
        const importer = relative(OUR_PACKAGES, args.importer);
        return { errors: [{ text: `${importer} imports the Node builtin "${args.path}": an edge runtime has none, and a bundler for it cannot resolve it` }] };
      }
      return { path: args.path, namespace: 'node-builtin' };
    });
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
export function bundleForTheEdge(entry: string): Promise<string> {
  return edgeBundle(entry, absentNodeBuiltins);
}

/**
 * `entry` bundled as {@link bundleForTheEdge} bundles it, but with no stand-in for any Node
 * built-in, whoever imports it: what a bundler for a worker target without Node compatibility
 * (Cloudflare without `nodejs_compat`, Vercel's edge) accepts. A built-in imported anywhere in the
 * graph, ours or a dependency's, fails the bundle with the module that imports it.
 */
export function bundleWithoutNode(entry: string): Promise<string> {
  return edgeBundle(entry, noNodeBuiltins);
}

const noNodeBuiltins: Plugin = {
  name: 'no-node-builtins',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      isBuiltin(args.path) ? { errors: [{ text: `${relative(OUR_PACKAGES, args.importer)} imports the Node builtin "${args.path}"` }] } : undefined,
    );
  },
};

async function edgeBundle(entry: string, builtins: Plugin): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    conditions: ['edge-light', 'worker', 'browser'],
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [builtins],
    logLevel: builtins === noNodeBuiltins ? 'silent' : 'error',
  });
  return result.outputFiles[0]!.text;
}
