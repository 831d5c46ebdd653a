// Bundles the CLI (dist/cli/main.js and everything it imports, lazily imported modules included)
// into dist/bundle/ with esbuild: main.js plus chunks shared by it and by the lazily imported
// parts (a command only loads the chunks it imports). Loading ~200 small ES modules (zod, yargs, undici, our own) cost more than running them;
// bin/mbulk.js imports dist/bundle/main.js. Run after `tsc -p tsconfig.build.json` (npm run build).
//
// Left external, loaded from node_modules when a command uses them: exceljs (large, CommonJS with
// its own optional requires), listr2 (progress in a terminal), libphonenumber-js (its metadata),
// msw (optional peer). The library entry points (dist/index.js, dist/msw.js) are not bundled.
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bundle');
/** yargs' own locales directory, found where esbuild loads yargs from. */
let yargsLocalesDir;

/**
 * yargs finds its translated messages at `../../../locales` from its own module; inside the bundle
 * that module is a chunk of dist/bundle/, so point it at dist/bundle/locales (copied below).
 */
const yargsLocales = {
  name: 'yargs-locales',
  setup(b) {
    b.onLoad({ filter: /yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, async (args) => {
      yargsLocalesDir = join(dirname(args.path), '..', '..', 'locales');
      const text = await readFile(args.path, 'utf8');
      const patched = text.replace("'../../../locales'", "'../locales'");
      if (patched === text) throw new Error(`bundle-cli: yargs locale path not found in ${args.path}`);
      return { contents: patched, loader: 'js' };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: join(root, 'dist', 'cli', 'main.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: ['exceljs', 'listr2', 'libphonenumber-js', 'msw', 'msw/*'],
  chunkNames: 'chunk-[hash]',
  minifySyntax: true,
  minifyWhitespace: true,
  // Bundled CommonJS (undici) calls require() for node: built-ins; give the ES module one.
  banner: {
    js: "import { createRequire as __mbulkCreateRequire } from 'node:module'; const require = __mbulkCreateRequire(import.meta.url);",
  },
  plugins: [yargsLocales],
  logLevel: 'warning',
});
if (yargsLocalesDir === undefined) throw new Error('bundle-cli: yargs was not bundled');
cpSync(yargsLocalesDir, join(outdir, 'locales'), { recursive: true });
