import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every citation of the contract page in the code and tests names a section the page has, and no
 * file cites a contract that is not in the repository.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CONTRACT = 'docs/contract.md';
/** The folders whose files are searched for citations: each workspace's sources and tests. */
const SEARCHED = ['packages', 'apps'].flatMap((group) =>
  readdirSync(join(ROOT, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((workspace) => ['src', 'test'].map((folder) => join(group, workspace.name, folder))),
);
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.turbo', 'coverage', 'test-results']);
const TEXT_FILE = /\.(?:[cm]?[jt]sx?|json|md)$/;
// Written in pieces so that this file does not cite what it forbids.
const UNSHIPPED_CONTRACT = ['DECISIONS', 'md'].join('.');
const CITATION = /docs\/contract\.md#([\p{L}\p{M}\p{N}_-]*)/gu;
/** The anchors other parts of the project rely on. */
const STABLE_ANCHORS = [
  'reading-the-authorization-header',
  'the-password-request-form',
  'client-authentication',
  'securityscopes',
  'openapi',
  'token-responses',
  'body-limits',
  'differences-from-fastapi',
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function githubSlug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown page's headings (outside code blocks), repeats numbered as GitHub does. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = githubSlug(heading[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function* filesUnder(folder: string): Generator<string> {
  let entries;
  try {
    entries = readdirSync(join(ROOT, folder), { withFileTypes: true });
  } catch {
    return; // a workspace without this folder
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) yield* filesUnder(path);
    } else if (TEXT_FILE.test(entry.name)) yield path;
  }
}

interface Citation {
  file: string;
  line: number;
  anchor: string;
}

const files = SEARCHED.flatMap((folder) => [...filesUnder(folder)]);
const texts = files.map((file) => ({ file: relative(ROOT, join(ROOT, file)), text: readFileSync(join(ROOT, file), 'utf8') }));
const citations: Citation[] = texts.flatMap(({ file, text }) =>
  text.split('\n').flatMap((line, index) => [...line.matchAll(CITATION)].map((match) => ({ file, line: index + 1, anchor: match[1]! }))),
);
const anchors = headingAnchors(readFileSync(join(ROOT, CONTRACT), 'utf8'));

describe('citations of the contract page', () => {
  it('turns headings into anchors as GitHub does', () => {
    expect(githubSlug('Reading the Authorization header')).toBe('reading-the-authorization-header');
    expect(githubSlug('SecurityScopes')).toBe('securityscopes');
    expect(githubSlug('Differences from FastAPI')).toBe('differences-from-fastapi');
    expect(githubSlug('The `scope` field: RFC 6749 §3.3 (rules)')).toBe('the-scope-field-rfc-6749-33-rules');
    expect(githubSlug('snake_case and hyphen-ated')).toBe('snake_case-and-hyphen-ated');
    expect([...headingAnchors('# A\n```\n# B\n```\n## A\n')]).toEqual(['a', 'a-1']);
  });

  it('searches the sources and tests of every workspace', () => {
    for (const workspace of ['packages/core', 'packages/openapi', 'apps/demo']) {
      expect(files.some((file) => file.startsWith(join(workspace, 'src'))), workspace).toBe(true);
      expect(files.some((file) => file.startsWith(join(workspace, 'test'))), workspace).toBe(true);
    }
    expect(citations.length).toBeGreaterThan(0);
  });

  it('has every section the project relies on', () => {
    expect(STABLE_ANCHORS.filter((anchor) => !anchors.has(anchor))).toEqual([]);
  });

  it('names only sections the page has', () => {
    const broken = citations.filter(({ anchor }) => !anchors.has(anchor)).map(({ file, line, anchor }) => `${file}:${line} #${anchor}`);
    expect(broken).toEqual([]);
  });

  it(`never cites ${UNSHIPPED_CONTRACT}, which the repository does not ship`, () => {
    const cited = texts.flatMap(({ file, text }) =>
      text.split('\n').flatMap((line, index) => (line.includes(UNSHIPPED_CONTRACT) ? [`${file}:${index + 1}`] : [])),
    );
    expect(cited).toEqual([]);
  });
});

// The code also cites the measurements page for why it is written the way it is.
const BENCHMARKS = 'BENCHMARKS.md';
const BENCHMARK_CITATION = /BENCHMARKS\.md#([\p{L}\p{M}\p{N}_-]*)/gu;
const benchmarkCitations: Citation[] = texts.flatMap(({ file, text }) =>
  text.split('\n').flatMap((line, index) => [...line.matchAll(BENCHMARK_CITATION)].map((match) => ({ file, line: index + 1, anchor: match[1]! }))),
);
const benchmarkAnchors = headingAnchors(readFileSync(join(ROOT, BENCHMARKS), 'utf8'));

describe('citations of the measurements page', () => {
  it('names only sections the page has', () => {
    expect(benchmarkCitations.length).toBeGreaterThan(0);
    const broken = benchmarkCitations.filter(({ anchor }) => !benchmarkAnchors.has(anchor)).map(({ file, line, anchor }) => `${file}:${line} #${anchor}`);
    expect(broken).toEqual([]);
  });
});
