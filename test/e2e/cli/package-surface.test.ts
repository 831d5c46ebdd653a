import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The package as a user gets it: the built binary and the built entry points (dist/, kept fresh by
// the globalSetup), imported by name through package.json "exports".
const root = resolve(import.meta.dirname, '..', '..', '..');
const run = promisify(execFile);

/** Every module specifier a declaration file imports or re-exports, followed through relative ones. */
async function declarationImports(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const external = new Set<string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(/(?:from\s+|import\(\s*)['"]([^'"]+)['"]/g)) {
      const spec = match[1] ?? '';
      if (spec.startsWith('.')) queue.push(join(dirname(file), spec.replace(/\.js$/, '.d.ts')));
      else external.add(spec);
    }
  }
  return external;
}

describe('the built package', () => {
  it('`mbulk --version` prints the package version and exits 0', async () => {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
    const { stdout } = await run(process.execPath, [join(root, 'bin', 'mbulk.js'), '--version']);
    expect(stdout.trim()).toBe(pkg.version);
  });

  it("the root entry's types never import msw; the msw handlers are in 'merchant-bulk/msw'", async () => {
    const rootImports = await declarationImports(join(root, 'dist', 'index.d.ts'));
    expect(rootImports.has('zod')).toBe(true); // the walk does reach the schemas
    expect([...rootImports].filter((spec) => spec === 'msw' || spec.startsWith('msw/'))).toEqual([]);
    expect(await declarationImports(join(root, 'dist', 'msw.d.ts'))).toContain('msw');
  });

  it('imports by package name as a user would: root entry without msw handlers, msw subpath with them', async () => {
    const script = `
      const lib = await import('merchant-bulk');
      const msw = await import('merchant-bulk/msw');
      console.log(JSON.stringify({ root: Object.keys(lib), msw: Object.keys(msw) }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    const surface = JSON.parse(stdout) as { root: string[]; msw: string[] };
    expect(surface.root).toEqual(expect.arrayContaining(['MerchantClient', 'startSandbox', 'readSheet']));
    expect(surface.root).not.toContain('loadSandboxHandlers');
    expect(surface.root).not.toContain('createSandboxHandlers');
    expect(surface.msw.sort()).toEqual(['createSandboxHandlers', 'loadSandboxHandlers']);
  });
});
