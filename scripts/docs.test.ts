// The documentation's shape: a README short enough to read, each paragraph kept
// in one place, links that lead somewhere, and the benchmark table of the last run.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { benchSection, currentBenchSection } from '../bench/readme-table.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Below this many lines the README stays a user's page; architecture, history and proofs live in docs/. */
const README_MAX_LINES = 400;
/** A run of this many characters (whitespace collapsed) found in two files is a paragraph kept twice. */
const SHARED_RUN = 200;

/** Every documentation file this check covers, relative to the root. */
function documentationFiles(): string[] {
  const markdownIn = (dir: string) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir))
          .filter((name) => name.endsWith('.md'))
          .map((name) => join(dir, name))
      : [];
  const packageReadmes = readdirSync(join(root, 'packages'))
    .map((name) => join('packages', name, 'README.md'))
    .filter((path) => existsSync(join(root, path)));
  return ['README.md', ...markdownIn('docs'), 'bench/README.md', 'e2e/README.md', ...packageReadmes].filter((path) => existsSync(join(root, path)));
}

const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The text with whitespace collapsed, so that rewrapping a paragraph does not hide a copy of it. */
function normalised(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Every run of SHARED_RUN characters that starts a word. Two texts that share a
 * run somewhat longer than SHARED_RUN share one of these: inside the run, the
 * places that follow a space are the same in both.
 */
function wordStartRuns(text: string): Set<string> {
  const runs = new Set<string>();
  for (let i = 0; i + SHARED_RUN <= text.length; i++) {
    if (i === 0 || text[i - 1] === ' ') runs.add(text.slice(i, i + SHARED_RUN));
  }
  return runs;
}

/** Fenced code blocks and inline code hold no links (a `[x](y)` there is an example). */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`+[^`\n]*`+/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = match[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Relative link targets in a markdown file: [text](target), without external URLs. */
function relativeLinks(markdown: string): string[] {
  const links: string[] = [];
  for (const match of withoutCode(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    links.push(target);
  }
  return links;
}

/** What is wrong with one link from `from`, or undefined when it leads to a file (and heading) that exist. */
function brokenLink(from: string, target: string): string | undefined {
  const [pathPart = '', anchor] = target.split('#', 2);
  const file = pathPart === '' ? join(root, from) : resolve(dirname(join(root, from)), decodeURIComponent(pathPart));
  if (!existsSync(file)) return `${from}: ${target}: no such file`;
  if (anchor === undefined || !file.endsWith('.md') || statSync(file).isDirectory()) return undefined;
  if (!headingAnchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())) {
    return `${from}: ${target}: no heading #${anchor} in ${relative(root, file)}`;
  }
  return undefined;
}

describe('the documentation', () => {
  const files = documentationFiles();

  it('covers the README, docs/, the bench, the e2e suite and the packages', () => {
    // A reader that found nothing would pass every check below.
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/security.md', 'docs/architecture.md', 'bench/README.md', 'e2e/README.md']));
  });

  it(`keeps the README under ${README_MAX_LINES} lines`, () => {
    const lines = read('README.md').split('\n').length;
    expect(lines, `README.md has ${lines} lines: move detail to docs/ and link to it`).toBeLessThan(README_MAX_LINES);
  });

  it('keeps each paragraph in one file', () => {
    const runs = new Map(files.map((path) => [path, wordStartRuns(normalised(read(path)))]));
    const copies: string[] = [];
    for (const [i, a] of files.entries()) {
      for (const b of files.slice(i + 1)) {
        const shared = [...runs.get(a)!].find((run) => runs.get(b)!.has(run));
        if (shared) copies.push(`${a} and ${b} both say: "${shared}"`);
      }
    }
    expect(copies).toEqual([]);
  });

  it('links only to files and headings that exist', () => {
    const broken = files.flatMap((path) => relativeLinks(read(path)).map((target) => brokenLink(path, target))).filter((problem) => problem !== undefined);
    expect(broken).toEqual([]);
  });

  it("gives, in the CLI's help, the agent configuration the README gives", () => {
    // ptydeck is not on the npm registry: `npx ptydeck` would fetch whatever package has that name.
    const suggested = [...read('packages/core/src/cli/usage.ts').matchAll(/^\s*(claude mcp add .*)$/gm)].map((match) => match[1]);
    expect(suggested.length).toBeGreaterThan(0);
    for (const line of suggested) expect(read('README.md')).toContain(`\`${line}\``);
  });

  it("shows bench/results.json's table in the README (npm run bench:readme writes it)", () => {
    const results = JSON.parse(read('bench/results.json'));
    expect(currentBenchSection(read('README.md'))).toBe(benchSection(results));
  });
});

describe('the checks themselves', () => {
  it('find a paragraph copied and rewrapped', () => {
    const paragraph = 'word '.repeat(60);
    const a = wordStartRuns(normalised(`Intro.\n\n${paragraph}\n\nEnd.`));
    const b = wordStartRuns(normalised(`Other.\n\n${paragraph.replace(/ /g, '\n')}`));
    expect([...a].some((run) => b.has(run))).toBe(true);
  });

  it("compute GitHub's anchors", () => {
    const anchors = headingAnchors('# A\n## Getting a panel link: `ptydeck serve` and `ptydeck url`\n### What moved the figures, and what is left\n## A\n```\n# not a heading\n```\n');
    expect([...anchors]).toEqual(['a', 'getting-a-panel-link-ptydeck-serve-and-ptydeck-url', 'what-moved-the-figures-and-what-is-left', 'a-1']);
  });

  it('skip links in code and external ones', () => {
    expect(relativeLinks('[a](docs/x.md#y) `[b](nope.md)` [c](https://example.com) [d](#here)\n```\n[e](no.md)\n```\n')).toEqual(['docs/x.md#y', '#here']);
  });
});
