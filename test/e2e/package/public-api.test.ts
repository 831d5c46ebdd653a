import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The package exactly as npm ships it (`npm pack` of the built dist/, kept fresh by the globalSetup),
// installed into a throwaway consumer project that has the runtime dependencies and @types/node
// but NOT msw (an optional peer): what a user's project looks like.
const root = resolve(import.meta.dirname, '..', '..', '..');
const run = promisify(execFile);
/** The public surface, one `value NAME` / `type NAME` per line: changing it is an API change. */
const pinnedFile = join(import.meta.dirname, 'public-api.txt');
/** At most this many runtime names: a surface a user can learn, without vestiges (issue 21). */
const MAX_RUNTIME_NAMES = 140;

let consumer = '';
let packageDir = '';

beforeAll(async () => {
  consumer = await mkdtemp(join(tmpdir(), 'mbulk-consumer-'));
  const modules = join(consumer, 'node_modules');
  await mkdir(join(modules, '@types'), { recursive: true });
  // --ignore-scripts: dist/ is already built; `prepare` would rebuild it for nothing.
  const { stdout } = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', consumer],
    {
      cwd: root,
    },
  );
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  await run('tar', ['-xzf', join(consumer, packed?.filename ?? ''), '-C', modules]);
  packageDir = join(modules, 'merchant-bulk');
  await rename(join(modules, 'package'), packageDir);
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const name of [...Object.keys(pkg.dependencies), '@types/node', 'typescript']) {
    // A scoped package (@modelcontextprotocol/sdk) lives in its scope's directory.
    await mkdir(dirname(join(modules, name)), { recursive: true });
    await symlink(join(root, 'node_modules', name), join(modules, name), 'dir');
  }
}, 60_000);

afterAll(async () => {
  if (consumer !== '') await rm(consumer, { recursive: true, force: true });
});

/** A strict consumer (no skipLibCheck) of the root entry, using a few of its values and types. */
const CONSUMER_TS = `import {
  ApiError,
  MerchantClient,
  Product,
  SandboxStore,
  applySavedRun,
  planStockImport,
  readSheet,
  startSandbox,
  type MerchantClientOptions,
  type PlanStockOptions,
  type RunningSandbox,
  type SheetRow,
  type StockApplySummary,
} from 'merchant-bulk';

export async function demo(sandbox: RunningSandbox): Promise<number> {
  const options: MerchantClientOptions = { baseUrl: sandbox.url, token: sandbox.token };
  const client = new MerchantClient(options);
  const plan: PlanStockOptions = { client, file: 'stock.csv', runsRoot: '.mbulk/runs', target: 'sandbox' };
  const planned = await planStockImport(plan);
  // The README's library example: plan, then apply the saved run with every check the CLI makes.
  const result = await applySavedRun(planned.run, { client, target: 'sandbox', onProgress: (p) => void p });
  const applied = result.applied ? result.status : result.message;
  const product: Product = Product.parse(await client.products.get('prod_1'));
  const rows: SheetRow[] = [];
  for await (const row of readSheet('stock.csv')) rows.push(row);
  const summary: StockApplySummary | undefined = undefined;
  const store = new SandboxStore();
  try {
    await client.products.get('missing');
  } catch (error) {
    if (error instanceof ApiError) return error.status;
  }
  return (
    rows.length + product.variants.length + store.counts().products + (summary ? 1 : 0) + applied.length
  );
}
void startSandbox;
`;

/**
 * Type-checks the consumer as its own project would (strict, NO skipLibCheck: every declaration
 * file it reaches is checked, ours and our dependencies'), and lists what the root entry's
 * declarations export, `value NAME` or `type NAME`, and the runtime names without a JSDoc comment
 * (on the export or on the declaration). One program for all: loading the declarations is most of
 * the time.
 */
async function compileConsumer(): Promise<{ errors: string[]; surface: string[]; undocumented: string[] }> {
  const file = join(consumer, 'consumer.ts');
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  await writeFile(file, CONSUMER_TS);
  const program = ts.createProgram([file], {
    strict: true,
    skipLibCheck: false,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: ['node'],
    noEmit: true,
  });
  const errors = ts.getPreEmitDiagnostics(program).map((d) =>
    ts.formatDiagnostic(d, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => consumer,
      getNewLine: () => '\n',
    }),
  );
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(join(packageDir, 'dist', 'index.d.ts'));
  const module = entry === undefined ? undefined : checker.getSymbolAtLocation(entry);
  if (module === undefined)
    return { errors: [...errors, 'merchant-bulk did not resolve'], surface: [], undocumented: [] };
  const surface: string[] = [];
  const undocumented: string[] = [];
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    // `export type { Order… }` of a schema that is also a value exports the type only.
    const value = (target.flags & ts.SymbolFlags.Value) !== 0 && !isTypeOnlyExport(symbol);
    surface.push(`${value ? 'value' : 'type'} ${symbol.name}`);
    const doc = [symbol, target].some((s) => s.getDocumentationComment(checker).length > 0);
    if (value && !doc) undocumented.push(symbol.name);
  }
  return { errors, surface: surface.sort(), undocumented: undocumented.sort() };
}

/** Whether an export is `export type { X }` or `export { type X }`. */
function isTypeOnlyExport(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some(
    (d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly),
  );
}

describe('the public API, from the packed package', () => {
  it('exports exactly the pinned values at runtime, at most 140, every error class an MbulkError', async () => {
    // The error classes outside the MbulkError family (none may be).
    const script = `const m = await import('merchant-bulk');
const outside = Object.keys(m).filter((k) => typeof m[k] === 'function' && m[k].prototype instanceof Error
  && m[k] !== m.MbulkError && !(m[k].prototype instanceof m.MbulkError));
console.log(JSON.stringify({ names: Object.keys(m), outside }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer });
    const { names, outside } = JSON.parse(stdout) as { names: string[]; outside: string[] };
    expect(outside).toEqual([]);
    expect(names.length).toBeLessThanOrEqual(MAX_RUNTIME_NAMES);
    if (process.env['UPDATE_PUBLIC_API'] === '1') return;
    const pinned = (await readFile(pinnedFile, 'utf8')).split('\n').filter((line) => line !== '');
    expect(names.sort()).toEqual(pinned.filter((l) => l.startsWith('value ')).map((l) => l.slice(6)));
  });

  it('compiles a strict consumer without skipLibCheck and without msw, and declares exactly the pinned names, each runtime one documented', async () => {
    const pinned = (await readFile(pinnedFile, 'utf8')).split('\n').filter((line) => line !== '');
    const { errors, surface, undocumented } = await compileConsumer();
    expect(errors).toEqual([]);
    expect(undocumented).toEqual([]);
    // A deliberate API change: `UPDATE_PUBLIC_API=1 npx vitest run test/e2e/package` rewrites the pin.
    if (process.env['UPDATE_PUBLIC_API'] === '1') await writeFile(pinnedFile, `${surface.join('\n')}\n`);
    expect(surface).toEqual(pinned);
  }, 90_000);
});

describe('the packed package, outside the clone (README: npm install -g)', () => {
  it('its mbulk runs from another directory: the embedded sandbox starts from its own samples', async () => {
    const state = join(consumer, 'sandbox.json');
    const { stdout } = await run(
      process.execPath,
      [
        join(packageDir, 'bin', 'mbulk.js'),
        'import',
        'products',
        join(packageDir, 'samples', 'catalog.csv'),
        '--sandbox-data',
        state,
        '--json',
      ],
      { cwd: consumer, env: { ...process.env, MERCHANT_API_URL: '', MERCHANT_API_TOKEN: '' } },
    );
    const result = JSON.parse(stdout) as { ok: boolean; target: string; counts: Record<string, number> };
    expect(result).toMatchObject({ ok: true, target: `local sandbox (${state})` });
    expect(result.counts['create']).toBeGreaterThan(0);
    const seeded = JSON.parse(await readFile(state, 'utf8')) as { me: { name: string } };
    expect(seeded.me.name).toBe('Kopi & Kain'); // the package's samples/store.json
  });
});
