import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// bin/mbulk.js runs the bundled CLI (dist/bundle/, made by scripts/bundle-cli.mjs in `npm run build`;
// the globalSetup keeps it fresh). These check that the bundle loads only what start-up needs and
// behaves as the modules tsc emits (dist/cli/main.js) do.
const root = resolve(import.meta.dirname, '..', '..', '..');
const run = promisify(execFile);

/** Every bare specifier reachable from a bundle file through static `import … from` only. */
async function staticImports(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = await readFile(file, 'utf8');
    // Static imports only: `import{a}from"./x.js"`, `import x from "y"`, `import "z"` (not `import(`).
    for (const match of text.matchAll(/\bimport\s*(?:[\w$*{][^;()]*?from\s*)?["']([^"']+)["']/g)) {
      const spec = match[1] ?? '';
      if (spec.startsWith('.')) queue.push(join(dirname(file), spec));
      else bare.add(spec);
    }
  }
  return bare;
}

/** Runs `node FILE ARGS` and returns stdout; the exit code and stderr must be those of a success. */
async function stdoutOf(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(process.execPath, [file, ...args], { cwd: root, env });
  return stdout;
}

describe('the bundled CLI', () => {
  it('loads exceljs, listr2, libphonenumber-js and msw only through lazy imports', async () => {
    const bare = await staticImports(join(root, 'dist', 'bundle', 'main.js'));
    // The walk does see the static imports (node built-ins at least).
    expect([...bare].some((spec) => spec.startsWith('node:') || spec === 'fs')).toBe(true);
    const heavy = [...bare].filter((spec) => /^(exceljs|listr2|libphonenumber-js|msw)(\/|$)/.test(spec));
    expect(heavy).toEqual([]);
    // …yet they are there, left external, in the chunks that the commands using them import lazily.
    const chunks = (await readdir(join(root, 'dist', 'bundle'))).filter((name) => name.endsWith('.js'));
    const text = (
      await Promise.all(chunks.map((name) => readFile(join(root, 'dist', 'bundle', name), 'utf8')))
    ).join('\n');
    for (const name of ['exceljs', 'listr2', 'libphonenumber-js']) {
      expect(text).toContain(`from"${name}"`);
    }
  });

  it('prints the same --help as the unbundled modules, translated yargs strings included', async () => {
    const unbundled = join(root, 'dist', 'cli', 'main.js');
    // A throwaway entry that runs dist/cli/main.js the way bin/mbulk.js runs the bundle.
    const script = `const { main } = await import(${JSON.stringify(pathToFileURL(unbundled).href)}); process.exitCode = await main(process.argv.slice(1));`;
    for (const locale of ['C', 'de_DE.UTF-8']) {
      const env = { ...process.env, LC_ALL: locale, LANG: locale, COLUMNS: '100' };
      const bundled = await stdoutOf(join(root, 'bin', 'mbulk.js'), ['import', 'products', '--help'], env);
      const { stdout: plain } = await run(
        process.execPath,
        ['--input-type=module', '-e', script, 'import', 'products', '--help'],
        { cwd: root, env },
      );
      expect(bundled).toContain('mbulk import products');
      expect(bundled).toBe(plain);
    }
    const german = await stdoutOf(join(root, 'bin', 'mbulk.js'), ['--help'], {
      ...process.env,
      LC_ALL: 'de_DE.UTF-8',
    });
    expect(german).toContain('Hilfe anzeigen');
  });
});
