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
  // Layers (README, Development). `npm run lint` also fails on any import cycle in src (dpdm).
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
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
