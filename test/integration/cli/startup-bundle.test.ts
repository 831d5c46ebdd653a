import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/server.js';

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

/**
 * Runs `node bin/mbulk.js ARGS` with a module loader hook that logs every ES module it loads; resolves
 * to its stdout and the texts of the bundle chunks it loaded (file name → text), the other
 * modules (node_modules, outside the bundle) it loaded, and Node's own modules it loaded.
 */
async function modulesLoadedBy(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; chunks: Map<string, string>; others: string[]; builtins: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'mbulk-loaded-'));
  try {
    const log = join(dir, 'loaded.txt');
    const builtinsLog = join(dir, 'builtins.txt');
    await writeFile(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }\n`,
    );
    await writeFile(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nimport { writeFileSync } from 'node:fs';\nregister('./hooks.mjs', import.meta.url);\nprocess.on('exit', () => writeFileSync(${JSON.stringify(builtinsLog)}, process.moduleLoadList.join('\\n')));\n`,
    );
    await writeFile(log, '');
    const { stdout } = await run(
      process.execPath,
      ['--import', pathToFileURL(join(dir, 'register.mjs')).href, join(root, 'bin', 'mbulk.js'), ...args],
      { cwd: root, env },
    );
    const urls = (await readFile(log, 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
    const bundleDir = join(root, 'dist', 'bundle');
    const chunks = new Map<string, string>();
    const others: string[] = [];
    for (const url of urls) {
      const file = fileURLToPath(url);
      if (dirname(file) === bundleDir)
        chunks.set(file.slice(bundleDir.length + 1), await readFile(file, 'utf8'));
      else if (!file.startsWith(join(root, 'bin'))) others.push(file);
    }
    const builtins = (await readFile(builtinsLog, 'utf8'))
      .split('\n')
      .filter((entry) => entry.startsWith('NativeModule '))
      .map((entry) => entry.slice('NativeModule '.length));
    return { stdout, chunks, others, builtins };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Which of these libraries and modules the loaded chunks hold, by a string only each one has. */
function holding(chunks: Map<string, string>): string[] {
  const markers: Record<string, string> = {
    undici: 'node_modules/undici/lib/dispatcher/agent.js',
    zod: '"$ZodType"',
    'store schema': '.literal("store")',
    'product schemas': 'PRODUCT_STATUSES=',
    'order schemas': 'ORDER_STATUSES=',
    'customer schemas': 'var Customer=',
    'apply command': 'registerApply=',
    'export command': 'registerExport=',
    'import command': 'registerImport=',
    'runs command': 'registerRuns=',
    'sandbox command': 'registerSandbox=',
    'whoami command': 'registerWhoami=',
  };
  const text = [...chunks.values()].join('\n');
  return Object.entries(markers)
    .filter(([, marker]) => text.includes(marker))
    .map(([name]) => name);
}

describe('start-up of the bundled CLI', () => {
  it('mbulk whoami loads its own command, the HTTP client and the store schema, nothing else', async () => {
    const sandbox = await startSandbox({
      port: 0,
      generate: { products: 1, customers: 1, orders: 0, currency: 'MYR' },
    });
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, MERCHANT_API_TOKEN: sandbox.token, NO_COLOR: '1' };
      delete env['MERCHANT_API_URL'];
      const loaded = await modulesLoadedBy(['whoami', '--base-url', sandbox.url], env);
      expect(loaded.stdout).toContain(`Store:     ${sandbox.store.getMe().name}`);
      expect(holding(loaded.chunks)).toEqual(['undici', 'zod', 'store schema', 'whoami command']);
      // exceljs, listr2, libphonenumber-js: none.
      expect(loaded.others).toEqual([]);
      // undici's HTTP/2 client (and with it node:http2 and node:tls) waits for an h2 connection.
      expect(loaded.builtins).toContain('http');
      expect(loaded.builtins.filter((name) => name === 'http2' || name === 'tls')).toEqual([]);
      // Requests go through undici's request API, not its fetch: no web streams, and no zlib (loaded
      // only for a compressed answer). worker_threads is not checked: this test's module hooks load it.
      const fetchOnly = ['zlib', 'internal/webstreams/readablestream'];
      expect(loaded.builtins.filter((name) => fetchOnly.includes(name))).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('mbulk --help loads every command, and neither the HTTP client nor zod', async () => {
    const loaded = await modulesLoadedBy(['--help'], { ...process.env, COLUMNS: '100' });
    expect(loaded.stdout).toContain('mbulk whoami');
    expect(holding(loaded.chunks)).toEqual([
      'apply command',
      'export command',
      'import command',
      'runs command',
      'sandbox command',
      'whoami command',
    ]);
  });
});
