import { fileURLToPath } from 'node:url';
import { aptInstall } from '../apt-install.js';
import type { ServerSpec } from '../http/server-process.js';
import { runProcess } from '../run-process.js';

/**
 * FastAPI's two uvicorn stacks: pure Python (h11 + asyncio) and C (httptools + uvloop).
 *
 * @example
 * ```ts
 * const stack: PeerStack = 'fast';
 * ```
 */
export type PeerStack = 'default' | 'fast';

/**
 * The FastAPI peer as found (or installed) on this machine.
 *
 * @example
 * ```ts
 * const peers: FastApiPeers = { versions: { fastapi: '0.92.0' }, servers: { default: spec, fast: spec }, skipped: {} };
 * ```
 */
export interface FastApiPeers {
  /** Versions of python, fastapi, uvicorn, pydantic, uvloop, httptools, where found. */
  versions: Record<string, string>;
  servers: Partial<Record<PeerStack, ServerSpec>>;
  /** Why a stack is missing. */
  skipped: Partial<Record<PeerStack, string>>;
}

/**
 * Debian's packages for the peer: FastAPI, uvicorn, form parsing, and the C stack.
 *
 * @example
 * ```ts
 * await aptInstall(PEER_PACKAGES);
 * ```
 */
export const PEER_PACKAGES = ['python3-fastapi', 'python3-uvicorn', 'python3-multipart', 'python3-uvloop', 'python3-httptools', 'python3-jwt'];

const serveScript = fileURLToPath(new URL('../../peer/serve.py', import.meta.url));

const PROBE = `
import importlib, json, platform
found = {"python": platform.python_version()}
for name in ["fastapi", "uvicorn", "pydantic", "multipart", "uvloop", "httptools", "jwt"]:
    try:
        module = importlib.import_module(name)
        found[name] = str(getattr(module, "__version__", getattr(module, "VERSION", "present")))
    except Exception:
        pass
print(json.dumps(found))
`;

const probe = async (python: string): Promise<Record<string, string> | null> => {
  const output = await runProcess(python, ['-c', PROBE], 30_000);
  try {
    return output.code === 0 ? (JSON.parse(output.stdout) as Record<string, string>) : null;
  } catch {
    return null;
  }
};

const hasAll = (versions: Record<string, string> | null, names: readonly string[]) =>
  versions !== null && names.every((name) => name in versions);
const DEFAULT_STACK = ['fastapi', 'uvicorn', 'multipart', 'jwt'];
const FAST_STACK = [...DEFAULT_STACK, 'uvloop', 'httptools'];

/**
 * Finds FastAPI under `python` (Debian's /usr/bin/python3 by default), installing Debian's
 * packages when some are missing and `install` allows. Never throws: a stack that cannot run is
 * listed in `skipped` with the reason, and the bench goes on without it.
 *
 * @example
 * ```ts
 * const peers = await prepareFastApi({ python: '/usr/bin/python3', install: true, note: console.error });
 * ```
 */
export async function prepareFastApi(opts: {
  python: string;
  install: boolean;
  note: (message: string) => void;
}): Promise<FastApiPeers> {
  let versions = await probe(opts.python);
  let installNote = '';
  if (!hasAll(versions, FAST_STACK) && opts.install) {
    opts.note(`FastAPI peer incomplete under ${opts.python}: installing ${PEER_PACKAGES.join(' ')} with apt-get…`);
    const outcome = await aptInstall(PEER_PACKAGES);
    if (!outcome.ok) {
      installNote = `; ${outcome.message}`;
      opts.note(outcome.message);
    }
    versions = await probe(opts.python);
  }
  const spec = (stack: PeerStack): ServerSpec => ({
    name: `fastapi-${stack}`,
    command: opts.python,
    args: ['-B', serveScript, stack],
    env: { PYTHONUNBUFFERED: '1' },
  });
  const missing = (names: readonly string[]) =>
    versions === null
      ? `${opts.python} did not run${installNote}`
      : `missing Python modules: ${names.filter((name) => !(name in versions!)).join(', ')}${installNote}`;
  const servers: FastApiPeers['servers'] = {};
  const skipped: FastApiPeers['skipped'] = {};
  if (hasAll(versions, DEFAULT_STACK)) servers.default = spec('default');
  else skipped.default = missing(DEFAULT_STACK);
  if (hasAll(versions, FAST_STACK)) servers.fast = spec('fast');
  else skipped.fast = missing(FAST_STACK);
  return { versions: versions ?? {}, servers, skipped };
}
