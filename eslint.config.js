import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Node's I/O modules, with and without the `node:` prefix. */
const nodeIo = ['fs', 'fs/promises', 'net', 'http', 'https', 'child_process', 'worker_threads'].flatMap(
  (m) => [m, `node:${m}`],
);

/** A no-restricted-imports rule: these module names and these path patterns are off limits. */
function restrict(paths, patterns, message) {
  return [
    'error',
    {
      paths: paths.map((name) => ({ name, message })),
      patterns: [{ group: patterns, message }],
    },
  ];
}

/** The folders of src (docs/architecture.md, The layers), each a layer. */
const LAYERS = [
  'api',
  'apply',
  'cli',
  'errors',
  'export',
  'feeds',
  'files',
  'fleet',
  'formats',
  'jobs',
  'mapping',
  'mcp',
  'plan',
  'report',
  'results',
  'sandbox',
  'schema',
  'sheets',
];

/**
 * A layer that may import only the layers it names: every other folder of src is off limits (cli/
 * included), and so are the packages in `paths` and the modules matching `patterns`.
 */
function layer(name, allowed, { paths = [], patterns = [] }, message) {
  const others = LAYERS.filter((l) => l !== name && !allowed.includes(l));
  return {
    files: [`src/${name}/**/*.ts`],
    rules: {
      'no-restricted-imports': restrict(paths, [...others.map((l) => `**/${l}/**`), ...patterns], message),
    },
  };
}

/**
 * One export path (issue 42): src/cli and src/mcp export through the library's entry,
 * exportFromStore (export/export-from-store.js), which reads the orders (pages read ahead), checks
 * the request and a feed's identity and writes the files. They wire no order reads of their own:
 * no value imported from another module of export/ (types are fine; accounting-profile.js holds
 * only the profiles' names and limits), nor from the orders resource or the read-ahead, and no
 * call of the client's orders.list / listPartitioned or new Orders.
 */
function exportEntryOnly(folder) {
  // esquery's regular expressions hold no '/': \x2F stands for it.
  const internals = String.raw`/\x2Fexport\x2F(?!(export-from-store|accounting-profile)\.js$)|\x2Fapi\x2F(resources\x2Forders|read-ahead)\.js$/`;
  const message = `${folder} exports only through exportFromStore (export/export-from-store.ts), the library's one export entry: no order reads, export internals or feed checks wired here.`;
  return [
    `ImportDeclaration[importKind='value'][source.value=${internals}] > :matches(ImportDefaultSpecifier, ImportNamespaceSpecifier, ImportSpecifier[importKind='value'])`,
    `ImportDeclaration[importKind='value'][source.value=${internals}][specifiers.length=0]`,
    `ImportExpression[source.value=${internals}]`,
    `:matches(ExportNamedDeclaration, ExportAllDeclaration)[exportKind='value'][source.value=${internals}]`,
    "MemberExpression[property.name=/^list(Partitioned)?$/]:matches([object.name='orders'], [object.property.name='orders'])",
    "NewExpression[callee.name='Orders']",
  ].map((selector) => ({ selector, message }));
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.mbulk/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // Layers (docs/architecture.md, The layers). `npm run lint` also fails on any import cycle in src (dpdm).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: {
      'no-restricted-imports': restrict(
        [],
        ['**/cli/*', '**/cli/**'],
        'Only src/cli prints and exits: nothing imports it.',
      ),
    },
  },
  {
    files: ['src/plan/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        [...nodeIo, 'undici', 'exceljs', 'papaparse'],
        [
          '**/cli/**',
          '**/api/**',
          '**/apply/**',
          '**/jobs/**',
          '**/export/**',
          '**/sandbox/**',
          '**/*-reader.js',
          '**/read-sheet.js',
        ],
        'plan/ is pure: no I/O, API client, executor or sheet readers.',
      ),
    },
  },
  {
    files: ['src/sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        [],
        ['**/cli/**', '**/api/**', '**/apply/**', '**/jobs/**'],
        'The sandbox implements the API on its own: it never imports our client or jobs.',
      ),
    },
  },
  // The foundations, from the bottom up: errors/ (the one error root) imports nothing; files/ (atomic
  // files, the append log) only errors/; schema/ (zod schemas) only errors/, and does no I/O;
  // sheets/ (readers, writers, cell codecs) errors/ and files/, never the API's schemas; api/ (the
  // client) schema/ and errors/; mapping/ (rows to entities) schema/, sheets/' codecs and errors/,
  // with no I/O and no sheet reader or writer.
  layer(
    'errors',
    [],
    { paths: nodeIo },
    'errors/ is the root of every layer: it imports no other part of src and does no I/O.',
  ),
  layer('files', ['errors'], {}, 'files/ holds the file primitives: it imports only errors/.'),
  layer(
    'schema',
    ['errors'],
    { paths: nodeIo },
    'schema/ is the data model: it imports only errors/ (and zod), and does no I/O.',
  ),
  layer(
    'sheets',
    ['errors', 'files'],
    {},
    "sheets/ reads and writes any sheet: it imports only errors/ and files/, not the API's schemas.",
  ),
  layer('api', ['errors', 'schema'], {}, 'api/ is the client: it imports only schema/ and errors/.'),
  // feeds/ downloads an import's source (size and time caps, redirect rules, header hygiene, the
  // remembered feeds) for the CLI, the fleet and MCP alike: errors/, files/ and api/'s guards only.
  layer(
    'feeds',
    ['errors', 'files', 'api'],
    {},
    'feeds/ downloads feeds: it imports only errors/, files/ and api/.',
  ),
  layer(
    'mapping',
    ['errors', 'schema', 'sheets'],
    {
      paths: [...nodeIo, 'undici', 'exceljs', 'papaparse'],
      patterns: ['**/*-reader.js', '**/read-sheet.js', '**/*-writer.js'],
    },
    "mapping/ turns rows into entities: schema/, sheets/' codecs and errors/ only; no I/O, no sheet reader or writer.",
  ),
  // results/ (a row's outcome, results.csv and failed.csv, the counts) sits between the run
  // directory and the runner: the runner calls it, it never calls back up (issue 42).
  layer(
    'results',
    ['errors', 'files', 'schema', 'sheets', 'mapping', 'apply'],
    {},
    'results/ writes what became of each row: it imports only apply/ and the folders below it, never jobs/.',
  ),
  // One apply path (issue 37): src/cli parses, asks and prints; every write goes through the
  // library's one apply entry, applySavedRun (lock, confirmation, drift, write checks, journal,
  // guards). A kind's apply*Run (applyStockRun, applyRollbackRun…) and the executor's applyRun are
  // not called from the CLI, nor imported (statically, or destructured from a dynamic import).
  // One export path (issue 42): src/cli and src/mcp export only through exportFromStore.
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          'ImportSpecifier[imported.name=/^(apply(?!Saved)[A-Z][a-z]+Run|applyRun)$/]',
          'ObjectPattern > Property[key.name=/^(apply(?!Saved)[A-Z][a-z]+Run|applyRun)$/]',
          'CallExpression[callee.name=/^(apply(?!Saved)[A-Z][a-z]+Run|applyRun)$/]',
          'MemberExpression[property.name=/^(apply(?!Saved)[A-Z][a-z]+Run|applyRun)$/]',
        ].map((selector) => ({
          selector,
          message:
            "src/cli writes only through applySavedRun (jobs/apply-saved-run.ts), the one apply entry: not a kind's apply*Run.",
        })),
        ...exportEntryOnly('src/cli'),
      ],
    },
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...exportEntryOnly('src/mcp')] },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
