import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The repository's root folder.
 *
 * @example
 * ```ts
 * join(ROOT, 'packages/core');
 * ```
 */
export const ROOT = new URL('../../../', import.meta.url).pathname;

/**
 * One package the repository publishes (a workspace under `packages/` that is not private).
 *
 * @example
 * ```ts
 * const core: PublishedPackage = { name: '@trpc-oauth2/core', dir: 'packages/core', manifest };
 * ```
 */
export interface PublishedPackage {
  name: string;
  dir: string;
  manifest: {
    name: string;
    version: string;
    private?: boolean;
    exports: Record<string, unknown>;
    peerDependencies?: Record<string, string>;
    [key: string]: unknown;
  };
}

/**
 * Every published package, read from `packages/*`: one added later is checked as well.
 *
 * @example
 * ```ts
 * publishedPackages().map((p) => p.name); // ['@trpc-oauth2/core', '@trpc-oauth2/openapi', …]
 * ```
 */
export function publishedPackages(): PublishedPackage[] {
  return readdirSync(join(ROOT, 'packages'))
    .map((folder) => {
      const dir = join('packages', folder);
      const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as PublishedPackage['manifest'];
      return { name: manifest.name, dir, manifest };
    })
    .filter((p) => p.manifest.private !== true)
    .sort((a, b) => a.name.localeCompare(b.name));
}
