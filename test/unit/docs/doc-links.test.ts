import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README is the front door (at most 30,000 bytes) and docs/ holds the depth. Every relative
// link and anchor in them must lead somewhere: a moved section otherwise breaks links silently.
const ROOT = resolve(import.meta.dirname, '../../..');
const DOCS = join(ROOT, 'docs');
const PAGES = [
  'README.md',
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown text without fenced code blocks and inline code spans (links there are examples). */
function proseOf(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const opening = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fence !== undefined) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length)
        fence = undefined;
      lines.push('');
      continue;
    }
    if (opening !== undefined) {
      fence = opening;
      lines.push('');
      continue;
    }
    lines.push(line.replace(/(`+)[^`]*?\1/g, ''));
  }
  return lines;
}

/** GitHub's anchor of a heading: its text lowercased, punctuation dropped, spaces as hyphens. */
function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*~]/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page: one per heading (duplicates numbered as GitHub does), plus `<a id>`s. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const opening = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fence !== undefined) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length)
        fence = undefined;
      continue;
    }
    if (opening !== undefined) {
      fence = opening;
      continue;
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1] ?? '');
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

interface Link {
  page: string;
  line: number;
  target: string;
}

function linksOf(page: string): Link[] {
  const links: Link[] = [];
  proseOf(readFileSync(join(ROOT, page), 'utf8')).forEach((text, i) => {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ page, line: i + 1, target: m[1] ?? '' });
    }
    for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s+(\S+)/g))
      links.push({ page, line: i + 1, target: m[1] ?? '' });
  });
  return links;
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** Why a relative link does not resolve, or undefined when it does. */
function brokenReason(link: Link): string | undefined {
  const [path = '', anchor] = link.target.split('#', 2);
  const file = path === '' ? join(ROOT, link.page) : resolve(dirname(join(ROOT, link.page)), decodeURI(path));
  if (!file.startsWith(ROOT)) return `${path} is outside the repository`;
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md'))
    return `#${anchor} on a file that is not Markdown`;
  const anchors = anchorsOf(readFileSync(file, 'utf8'));
  return anchors.has(decodeURIComponent(anchor))
    ? undefined
    : `${relative(ROOT, file)} has no heading #${anchor}`;
}

describe('README.md and docs/', () => {
  it('keep the README a front door: at most 30,000 bytes', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(30_000);
  });

  it('have every relative link and anchor resolve', () => {
    const links = PAGES.flatMap(linksOf).filter((l) => !isExternal(l.target));
    expect(links.length).toBeGreaterThan(20);
    const broken = links.flatMap((l) => {
      const reason = brokenReason(l);
      return reason === undefined ? [] : [`${l.page}:${l.line}: (${l.target}) ${reason}`];
    });
    expect(broken).toEqual([]);
  });

  it('list every page of docs/ in the README', () => {
    const targets = new Set(linksOf('README.md').map((l) => l.target.split('#')[0]));
    const missing = PAGES.filter((p) => p.startsWith('docs/') && !targets.has(p));
    expect(missing).toEqual([]);
  });

  it('make anchors as GitHub does', () => {
    expect(slugOf('AI assistants: `mbulk mcp`')).toBe('ai-assistants-mbulk-mcp');
    expect(slugOf("A run's files")).toBe('a-runs-files');
    expect(slugOf('Plan, review, apply, results')).toBe('plan-review-apply-results');
    expect(slugOf('Review page (`report.html`)')).toBe('review-page-reporthtml');
    expect(slugOf('The runner: one runner, a folder per kind')).toBe(
      'the-runner-one-runner-a-folder-per-kind',
    );
  });

  it('finds a broken link and a broken anchor (the check is not vacuous)', () => {
    expect(brokenReason({ page: 'README.md', line: 1, target: 'docs/nowhere.md' })).toMatch(/does not exist/);
    expect(brokenReason({ page: 'README.md', line: 1, target: '#no-such-heading' })).toMatch(/no heading/);
    expect(
      brokenReason({ page: 'docs/operations.md', line: 1, target: '../README.md#exit-codes' }),
    ).toBeUndefined();
  });
});
