import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

// bin/mbulk.js runs the bundled CLI (dist/bundle/main.cjs, made by scripts/bundle-cli.mjs in `npm run
// build`; the globalSetup keeps it fresh). These check that the bundle runs only what start-up needs
// and behaves as the modules tsc emits (dist/cli/main.js) do.
const root = resolve(import.meta.dirname, '..', '..', '..');
const run = promisify(execFile);
const bundleFile = join(root, 'dist', 'bundle', 'main.cjs');
const mcpBundleFile = join(root, 'dist', 'bundle', 'mcp.cjs');

/** Runs `node FILE ARGS` and returns stdout; the exit code and stderr must be those of a success. */
async function stdoutOf(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(process.execPath, [file, ...args], { cwd: root, env });
  return stdout;
}

describe('the bundled CLI', () => {
  it('is one CommonJS file that requires exceljs, listr2, libphonenumber-js and the MCP SDK, left external', async () => {
    const names = await readdir(join(root, 'dist', 'bundle'));
    // Beside the two CLI bundles, the worker thread that writes an order export's XLSX (issue 41).
    expect(names.filter((name) => /\.[cm]?js$/.test(name))).toEqual([
      'main.cjs',
      'mcp.cjs',
      'xlsx-thread-worker.cjs',
    ]);
    const text = await readFile(bundleFile, 'utf8');
    for (const name of ['exceljs', 'listr2', 'libphonenumber-js'])
      expect(text).toContain(`require("${name}")`);
    // Left out of the bundle: none of their code is in it.
    expect(text).not.toContain('node_modules/exceljs/');
    expect(text).not.toContain('node_modules/listr2/');
    expect(text).toContain('require("@modelcontextprotocol/sdk/server/mcp.js")');
    expect(text).not.toContain('node_modules/@modelcontextprotocol/');
  });

  it('has a second bundle for `mbulk mcp`, the same CLI with the MCP SDK inside', async () => {
    const text = await readFile(mcpBundleFile, 'utf8');
    expect(text).not.toContain('require("@modelcontextprotocol/');
    expect(text).toContain('node_modules/@modelcontextprotocol/sdk/dist/');
    for (const name of ['exceljs', 'listr2', 'libphonenumber-js'])
      expect(text).toContain(`require("${name}")`);
    // Either bundle runs any command: the mcp one prints the same help.
    const env = { ...process.env, LC_ALL: 'C', COLUMNS: '100' };
    const driver = `require(${JSON.stringify(mcpBundleFile)}).main(process.argv.slice(1)).then((code) => { process.exitCode = code; });`;
    const { stdout } = await run(process.execPath, ['-e', driver, '--', 'whoami', '--help'], {
      cwd: root,
      env,
    });
    expect(stdout).toContain('mbulk whoami');
    expect(stdout).toBe(await stdoutOf(join(root, 'bin', 'mbulk.js'), ['whoami', '--help'], env));
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
 * Runs `node bin/mbulk.js ARGS` (INPUT on its stdin, then end of file) with a module loader hook that
 * logs every ES module it loads; resolves to its stdout, the modules outside the bundles (node_modules)
 * it loaded, as ES modules or through require(), and Node's own modules it loaded.
 */
async function modulesLoadedBy(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd = root,
  input = '',
): Promise<{ stdout: string; others: string[]; builtins: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'mbulk-loaded-'));
  try {
    const log = join(dir, 'loaded.txt');
    const builtinsLog = join(dir, 'builtins.txt');
    const requiredLog = join(dir, 'required.txt');
    await writeFile(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }\n`,
    );
    await writeFile(
      join(dir, 'register.mjs'),
      `import { createRequire, register } from 'node:module';\nimport { writeFileSync } from 'node:fs';\nregister('./hooks.mjs', import.meta.url);\nconst require = createRequire(import.meta.url);\nprocess.on('exit', () => { writeFileSync(${JSON.stringify(builtinsLog)}, process.moduleLoadList.join('\\n')); writeFileSync(${JSON.stringify(requiredLog)}, Object.keys(require.cache).join('\\n')); });\n`,
    );
    await writeFile(log, '');
    const running = run(
      process.execPath,
      ['--import', pathToFileURL(join(dir, 'register.mjs')).href, join(root, 'bin', 'mbulk.js'), ...args],
      { cwd, env: { ...env, XDG_CACHE_HOME: join(dir, 'cache') } },
    );
    running.child.stdin?.end(input);
    const { stdout } = await running;
    const urls = (await readFile(log, 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
    const files = [
      ...urls.map((url) => fileURLToPath(url)),
      ...(await readFile(requiredLog, 'utf8')).split('\n').filter((file) => file !== ''),
    ];
    const others = files.filter(
      (file) =>
        file !== bundleFile &&
        file !== mcpBundleFile &&
        !file.startsWith(join(root, 'bin')) &&
        !file.startsWith(dir),
    );
    const builtins = (await readFile(builtinsLog, 'utf8'))
      .split('\n')
      .filter((entry) => entry.startsWith('NativeModule '))
      .map((entry) => entry.slice('NativeModule '.length));
    return { stdout, others, builtins };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Which modules of the bundle run for `mbulk ARGS`: esbuild wraps each lazily loaded module in an
 * `__esm` (ES module) or `__commonJS` function run on first use; a copy of the bundle beside it records
 * each one it runs. Resolves to the paths of those modules (`dist/cli/commands/whoami.js`,
 * `node_modules/undici/…`), deduplicated.
 */
async function modulesRunBy(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; ran: string[] }> {
  const text = await readFile(bundleFile, 'utf8');
  const record = (fn: string) => `(globalThis.__mbulkRan??=[]).push(__getOwnPropNames(${fn})[0]),`;
  const probe = text
    .replace('try{return fn&&(', `try{return fn&&(${record('fn')}`)
    .replace('try{return mod2||(', `try{return mod2||(${record('cb')}`);
  // Both wrappers found and instrumented.
  expect(probe.length - text.length).toBe(2 * record('fn').length);
  // Beside the bundle: it finds yargs' locales and package.json from its own place.
  const copy = join(root, 'dist', 'bundle', `main.probe-${process.pid}.cjs`);
  await writeFile(copy, probe);
  try {
    const driver = `require(${JSON.stringify(copy)}).main(process.argv.slice(1)).then((code) => { process.exitCode = code; }); process.on('exit', () => require('node:fs').writeSync(3, JSON.stringify(globalThis.__mbulkRan ?? [])));`;
    const child = spawn(process.execPath, ['-e', driver, '--', ...args], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
    });
    let stdout = '';
    let ran = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stdio[3]?.on('data', (chunk: Buffer) => (ran += chunk.toString()));
    const code = await new Promise((done) => child.on('close', done));
    expect(code).toBe(0);
    return { stdout, ran: [...new Set(JSON.parse(ran) as string[])] };
  } finally {
    await rm(copy, { force: true });
  }
}

/** Which of these libraries and modules ran, by the path of a module of each. */
function holding(ran: string[]): string[] {
  const markers: Record<string, RegExp> = {
    undici: /node_modules\/undici\/lib\/dispatcher\/agent\.js$/,
    zod: /node_modules\/zod\/v4\/core\/schemas\.js$/,
    'store schema': /^dist\/schema\/store\.js$/,
    'product schemas': /^dist\/schema\/product\.js$/,
    'order schemas': /^dist\/schema\/order\.js$/,
    'customer schemas': /^dist\/schema\/customer\.js$/,
    'apply command': /^dist\/cli\/commands\/apply\.js$/,
    'export command': /^dist\/cli\/commands\/export\.js$/,
    'import command': /^dist\/cli\/commands\/import\.js$/,
    'runs command': /^dist\/cli\/commands\/runs\.js$/,
    'sandbox command': /^dist\/cli\/commands\/sandbox\.js$/,
    'whoami command': /^dist\/cli\/commands\/whoami\.js$/,
  };
  return Object.entries(markers)
    .filter(([, marker]) => ran.some((path) => marker.test(path)))
    .map(([name]) => name);
}

/** Runs BODY against a one-product sandbox, with an env that targets it by --base-url only. */
async function withSandbox(
  body: (sandbox: RunningSandbox, env: NodeJS.ProcessEnv) => Promise<void>,
): Promise<void> {
  const sandbox = await startSandbox({
    port: 0,
    generate: { products: 1, customers: 1, orders: 0, currency: 'MYR' },
  });
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, MERCHANT_API_TOKEN: sandbox.token, NO_COLOR: '1' };
    delete env['MERCHANT_API_URL'];
    await body(sandbox, env);
  } finally {
    await sandbox.close();
  }
}

describe('start-up of the bundled CLI', () => {
  it('mbulk whoami loads its own command, the HTTP client and the store schema, nothing else', async () => {
    await withSandbox(async (sandbox, env) => {
      const loaded = await modulesLoadedBy(['whoami', '--base-url', sandbox.url], env);
      expect(loaded.stdout).toContain(`Store:     ${sandbox.store.getMe().name}`);
      const { stdout, ran } = await modulesRunBy(['whoami', '--base-url', sandbox.url], env);
      expect(stdout).toBe(loaded.stdout);
      expect(holding(ran)).toEqual(['undici', 'zod', 'store schema', 'whoami command']);
      // exceljs, listr2, libphonenumber-js: none.
      expect(loaded.others).toEqual([]);
      // undici's HTTP/2 client (and with it node:http2 and node:tls) waits for an h2 connection.
      expect(loaded.builtins).toContain('http');
      expect(loaded.builtins.filter((name) => name === 'http2' || name === 'tls')).toEqual([]);
      // Requests go through undici's request API, not its fetch: no web streams, and no zlib (loaded
      // only for a compressed answer). worker_threads is not checked: this test's module hooks load it.
      const fetchOnly = ['zlib', 'internal/webstreams/readablestream'];
      expect(loaded.builtins.filter((name) => fetchOnly.includes(name))).toEqual([]);
    });
  });

  it('mbulk mcp runs the mcp bundle: it answers initialize and tools/list loading nothing from node_modules', async () => {
    await withSandbox(async (sandbox, env) => {
      const requests = [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ];
      const loaded = await modulesLoadedBy(
        ['mcp', '--base-url', sandbox.url],
        env,
        root,
        requests.map((r) => JSON.stringify(r) + '\n').join(''),
      );
      const answers = loaded.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: number; result: { tools?: { name: string }[] } });
      expect(answers.map((a) => a.id)).toEqual([1, 2]);
      expect(answers[1]?.result.tools?.map((t) => t.name)).toContain('plan_import');
      // The SDK, ajv and zod ran from mcp.cjs: nothing from node_modules.
      expect(loaded.others).toEqual([]);
    });
  });

  it('mbulk --help loads every command, and neither the HTTP client nor zod', async () => {
    const loaded = await modulesRunBy(['--help'], { ...process.env, COLUMNS: '100' });
    expect(loaded.stdout).toContain('mbulk whoami');
    expect(holding(loaded.ran)).toEqual([
      'apply command',
      'export command',
      'import command',
      'runs command',
      'sandbox command',
      'whoami command',
    ]);
  });

  it('a CSV export and a CSV import plan never load exceljs (0.4 s of start-up: it is for workbooks only)', async () => {
    const work = await mkdtemp(join(tmpdir(), 'mbulk-csv-'));
    try {
      await withSandbox(async (sandbox, env) => {
        // The store's items, one row each.
        const answer = await fetch(`${sandbox.url}/api/v2/products`, {
          headers: { authorization: `Bearer ${sandbox.token}` },
        });
        const { data } = (await answer.json()) as {
          data: { variants: { inventory: { sku: string; quantity: number } }[] }[];
        };
        const items = data.flatMap((p) => p.variants.map((v) => v.inventory));
        expect(items.length).toBeGreaterThan(1);
        const rows = items.map((item) => `${item.sku},${item.quantity}`);
        await writeFile(join(work, 'stock.csv'), ['sku,quantity', ...rows].join('\n') + '\n');
        const args = ['import', 'stock', 'stock.csv', '--base-url', sandbox.url];
        const imported = await modulesLoadedBy(args, env, work);
        expect(imported.stdout).toContain(`Plan: rows ${items.length} ·`);
        const exported = await modulesLoadedBy(
          ['export', 'customers', 'customers.csv', '--base-url', sandbox.url],
          env,
          work,
        );
        expect(exported.stdout).toMatch(/Exported 1 customer/);
        expect((await readFile(join(work, 'customers.csv'), 'utf8')).split('\n')[0]).toContain('email');
        const exceljs = join(root, 'node_modules', 'exceljs') + sep;
        expect(imported.others.filter((file) => file.startsWith(exceljs))).toEqual([]);
        expect(exported.others.filter((file) => file.startsWith(exceljs))).toEqual([]);
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('an XLSX export and its import plan, run from another directory, load exceljs, listr2 and libphonenumber-js', async () => {
    const work = await mkdtemp(join(tmpdir(), 'mbulk-xlsx-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, XDG_DATA_HOME: join(work, 'data'), NO_COLOR: '1' };
      delete env['MERCHANT_API_URL'];
      const exported = await modulesLoadedBy(['export', 'customers', 'customers.xlsx'], env, work);
      expect(exported.stdout).toMatch(/Exported \d+ customers/);
      // A zip (XLSX) that exceljs wrote, not a CSV.
      expect((await readFile(join(work, 'customers.xlsx'))).subarray(0, 2).toString('latin1')).toBe('PK');
      const imported = await modulesLoadedBy(['import', 'customers', 'customers.xlsx'], env, work);
      expect(imported.stdout).toMatch(
        /Plan: rows \d+ · create 0 · update 0 · unchanged \d+ · skipped 0 · invalid 0/,
      );
      const from = (name: string) => (file: string) =>
        file.startsWith(join(root, 'node_modules', name) + sep);
      expect(exported.others.some(from('exceljs'))).toBe(true);
      for (const name of ['exceljs', 'listr2', 'libphonenumber-js'])
        expect(imported.others.some(from(name)), name).toBe(true);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
