import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md draws the map of src/: a row per folder, from the foundations up, and the
// folders it imports. The map is only worth reading while it is true, so it is checked against the
// code: the same folders, and every import of a folder's files (type imports and lazy imports
// count) is of a folder drawn above it. A new import that keeps the layers passes.
const ROOT = resolve(import.meta.dirname, '../../..');
const SRC = join(ROOT, 'src');

interface MapRow {
  folder: string;
  imports: string[];
}

/** The rows of the table between `<!-- map:start -->` and `<!-- map:end -->`. */
function mapRows(markdown: string): MapRow[] {
  const start = markdown.indexOf('<!-- map:start -->');
  const end = markdown.indexOf('<!-- map:end -->');
  if (start < 0 || end < start) throw new Error('docs/architecture.md has no map between its markers');
  return markdown
    .slice(start, end)
    .split('\n')
    .filter((line) => /^\|\s*`src\//.test(line))
    .map((line) => {
      const cells = line.split('|').map((c) => c.trim());
      const folder = /^`src\/([^/`]+)\/`$/.exec(cells[1] ?? '')?.[1];
      if (folder === undefined) throw new Error(`a map row that names no folder: ${line}`);
      const imports = [...(cells[3] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
      return { folder, imports: imports.sort() };
    });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each folder of src/ and the other folders of src/ its files import. */
function actualMap(): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (const entry of readdirSync(SRC, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const uses = new Set<string>();
    for (const file of filesUnder(join(SRC, entry.name))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm,
      )) {
        const target = relative(SRC, resolve(dirname(file), m[1] ?? ''));
        const top = target.split(sep)[0];
        if (top !== undefined && top !== entry.name && !top.startsWith('..') && target.includes(sep))
          uses.add(top);
      }
    }
    map.set(entry.name, uses);
  }
  return map;
}

describe("docs/architecture.md's map of src/", () => {
  const rows = mapRows(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
  const actual = actualMap();

  it('names every folder of src/, once, and no other', () => {
    expect(rows.map((r) => r.folder).sort()).toEqual([...actual.keys()].sort());
  });

  it('draws the layers: each folder imports only folders drawn above it (arrows never run back up)', () => {
    const position = new Map(rows.map((r, i) => [r.folder, i]));
    const upward = rows.flatMap((row, i) => {
      const real = [...(actual.get(row.folder) ?? [])].filter((f) => (position.get(f) ?? Infinity) >= i);
      const drawn = row.imports.filter((f) => (position.get(f) ?? Infinity) >= i);
      return [...new Set([...real, ...drawn])].map(
        (f) => `src/${row.folder}/ imports src/${f}/, drawn below it`,
      );
    });
    expect(upward).toEqual([]);
  });

  it('reads the table it checks (the check is not vacuous)', () => {
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.find((r) => r.folder === 'errors')?.imports).toEqual([]);
    expect(actual.get('plan')?.has('schema')).toBe(true);
  });
});
