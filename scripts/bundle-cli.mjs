// Bundles the CLI (dist/cli/main.js and everything it imports, lazily imported modules included)
// into one CommonJS file, dist/bundle/main.cjs, with esbuild. Loading ~200 small ES modules (zod,
// yargs, undici, our own) cost more than running them. One CommonJS file, because Node 20 has no
// compile cache for ES modules: bin/mbulk.js runs it through bin/code-cache.js, which keeps V8's
// compiled code of this one script on disk (Node >= 22.1: module.enableCompileCache). The lazily
// imported parts stay lazy: esbuild wraps each module in a function run on its first import, so a
// command runs only what it imports, even though every start reads (or, with no cache, parses) the
// whole file. Run after `tsc -p tsconfig.build.json` (npm run build).
//
// Left external, require()d from node_modules (their CommonJS builds) when the module of a command
// that uses them first runs: exceljs (large, CommonJS with its own optional requires), listr2
// (progress in a terminal), libphonenumber-js (its metadata), msw (optional peer), yaml (~200 KB,
// read by `mbulk fleet run` only: every other command's start-up keeps its bundle size),
// @modelcontextprotocol/sdk (with its ajv, ~1 MB: read by `mbulk mcp` only, for the same reason). The library
// entry points (dist/index.js, dist/msw.js) are not bundled.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bundle');
/** yargs' own locales directory, found where esbuild loads yargs from. */
let yargsLocalesDir;

/**
 * yargs finds its translated messages at `../../../locales` from its own module's file; inside the
 * bundle that file is dist/bundle/main.cjs, so point it at dist/bundle/locales (copied below). And the
 * package.json it reads is this package's (below).
 */
const yargsLocales = {
  name: 'yargs-locales',
  setup(b) {
    b.onLoad({ filter: /yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, async (args) => {
      yargsLocalesDir = join(dirname(args.path), '..', '..', 'locales');
      const text = await readFile(args.path, 'utf8');
      const localesPatched = text.replace("'../../../locales'", "'../locales'");
      if (localesPatched === text) throw new Error(`bundle-cli: yargs locale path not found in ${args.path}`);
      // yargs finds "its" package.json (a guessed --version, `yargs` settings) up from the directory
      // above node_modules; in the bundle there is none, and it searched from the working directory
      // upwards, reading every directory on the way. Start at this package instead (dist/bundle/../..),
      // as yargs does when not bundled.
      const patched = localesPatched.replace(
        "const mainFilename = __dirname.substring(0, __dirname.lastIndexOf('node_modules'));",
        "const mainFilename = fileURLToPath(new URL('../../', import.meta.url));",
      );
      if (patched === localesPatched)
        throw new Error(`bundle-cli: yargs mainFilename not found in ${args.path}`);
      return { contents: patched, loader: 'js' };
    });
  },
};

/**
 * undici's entry point loads all of undici (mock agents, caches, fetch, WebSocket, EventSource,
 * cookies, which in turn load Node's own copy of undici): about a third of `mbulk whoami`'s start-up.
 * The CLI uses only `Agent` and its `request()` (src/api/transport.ts), so its `import … from
 * 'undici'` gets the modules that define them, and `request` is put on the dispatchers' prototype
 * as undici's index.js does (`Object.assign(Dispatcher.prototype, api)`). The library (dist/index.js)
 * still imports undici whole. If a later undici moves these files, the build fails here rather than
 * at run time.
 */
const undiciAgentAndRequest = {
  name: 'undici-agent-and-request',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.endsWith(join('dist', 'api', 'transport.js'))
        ? { path: 'undici-agent-and-request', namespace: 'mbulk' }
        : undefined,
    );
    b.onLoad({ filter: /^undici-agent-and-request$/, namespace: 'mbulk' }, () => ({
      contents: [
        "import Agent from 'undici/lib/dispatcher/agent.js';",
        "import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';",
        "import request from 'undici/lib/api/api-request.js';",
        'Object.assign(Dispatcher.prototype, { request });',
        'export { Agent };',
      ].join('\n'),
      resolveDir: root,
      loader: 'js',
    }));
  },
};

/**
 * yargs lays out help with cliui, which measures every cell with string-width 7 (and wrap-ansi with
 * the same): a grapheme segmenter and an emoji regex per character. yargs renders the help of the
 * command it runs before running it, so this is paid by every command, not only --help. And loading
 * string-width (7 for cliui and wrap-ansi, 8 for yargs) makes an `Intl.Segmenter` and a
 * `\p{RGI_Emoji}` regex, ~50 ms of ICU data and regex compilation at start-up. Printable ASCII is one
 * column per character (string-width 8 takes the same shortcut); anything else goes to the
 * string-width the importer asked for, loaded on that first use, so the layout is unchanged.
 */
const asciiStringWidth = {
  name: 'ascii-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) =>
      args.pluginData === 'original' ||
      !/[\\/]node_modules[\\/](cliui|wrap-ansi|yargs)[\\/]/.test(args.importer)
        ? undefined
        : { path: `${args.importer}#string-width`, namespace: 'ascii-string-width' },
    );
    b.onLoad({ filter: /.*/, namespace: 'ascii-string-width' }, async (args) => {
      // Resolve string-width as the importer would (its own nested copy), past this plugin.
      const original = await b.resolve('string-width', {
        kind: 'require-call',
        resolveDir: dirname(args.path),
        pluginData: 'original',
      });
      if (original.errors.length > 0) throw new Error(`bundle-cli: string-width not found from ${args.path}`);
      return {
        // esbuild runs a require()d ES module's top level at the require() call: here, on first use.
        contents: [
          'const ascii = /^[\\x20-\\x7e]*$/;',
          'let stringWidth;',
          'export default (text, options) =>',
          "  typeof text === 'string' && ascii.test(text)",
          '    ? text.length',
          `    : (stringWidth ??= require(${JSON.stringify(original.path)}).default)(text, options);`,
        ].join('\n'),
        resolveDir: dirname(args.path),
        loader: 'js',
      };
    });
  },
};

/**
 * zod re-exports every one of its ~60 message locales (`z.locales.de()` …): half of zod's size in
 * the bundle, compiled by every command that reads an API answer. zod speaks English unless told
 * otherwise (`z.config(z.locales.xx())`), which the CLI never does; its `locales` keep `en` only.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-english-only' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * undici's Client loads its HTTP/2 half (client-h2.js) at start-up, and with it `node:http2` (and
 * through it `node:tls` and more of Node's own modules): ~10 ms of CPU per command. It is only called
 * when a connection negotiates h2, which needs `allowH2` (off by default; the CLI never sets it). The
 * Client gets a function that loads client-h2.js on that first call and hands over to it, unchanged.
 */
const undiciLazyH2 = {
  name: 'undici-lazy-h2',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer)
        ? // A path of its own: esbuild writes it into the bundle, where the build's directory has no place.
          {
            path: 'undici/lib/dispatcher/client-h2.js',
            namespace: 'undici-lazy-h2',
            pluginData: join(dirname(args.importer), 'client-h2.js'),
          }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'undici-lazy-h2' }, (args) => ({
      // esbuild runs a require()d CommonJS module's top level at the require() call: here, on first use.
      contents: [
        'let connectH2;',
        `module.exports = (...args) => (connectH2 ??= require(${JSON.stringify(args.pluginData)}))(...args);`,
      ].join('\n'),
      resolveDir: dirname(args.pluginData),
      loader: 'js',
    }));
  },
};

/**
 * When yargs starts a command's handler it renders that command's help text and keeps it, in case
 * the handler later asks for it (`showHelp()`) or a failure prints usage: ~7 ms of CPU per command.
 * The CLI does neither: `--help` is answered before any handler runs, and its `.fail()` handler
 * throws a CliError with the message only, never the help. So the rendering is dropped; `--help`
 * and every usage message are unchanged (yargs renders help when asked, as before).
 */
const yargsNoHelpCache = {
  name: 'yargs-no-help-cache',
  setup(b) {
    b.onLoad({ filter: /yargs[\\/]build[\\/]lib[\\/]usage\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const patched = text.replace(
        'self.cacheHelpMessage = function () {\n        cachedHelpMessage = this.help();\n    };',
        'self.cacheHelpMessage = function () {};',
      );
      if (patched === text) throw new Error(`bundle-cli: yargs cacheHelpMessage not found in ${args.path}`);
      return { contents: patched, loader: 'js' };
    });
  },
};

/**
 * The bundle is one function of CommonJS's five parameters. Loaded by require() (Node >= 22.1), the
 * arrow sees the module wrapper's `arguments` and `this` and runs it at once. Run as a script by
 * bin/code-cache.js, where `arguments` is not defined, its value is the function, which the loader
 * calls: the loader needs no `Module.wrap(source)`, a copy of 1.8 MB at every start. Strict, as
 * the ES modules it is made of (esbuild's own "use strict" comes after our first statement).
 */
const PROLOGUE = [
  "((f) => (typeof arguments === 'object' ? f.apply(this, arguments) : f))(",
  'function (exports, require, module, __filename, __dirname) {',
  "'use strict';",
  "var __mbulkImportMetaUrl = require('node:url').pathToFileURL(__filename).href;\n",
].join('');
const EPILOGUE = '\n});\n';

/** Packages left out of every bundle, require()d from node_modules when first used (see the top). */
const EXTERNAL = ['exceljs', 'listr2', 'libphonenumber-js', 'msw', 'msw/*', 'yaml'];
const MCP_SDK = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'];

/** Bundles the CLI into dist/bundle/NAME.cjs (and its LEGAL.txt), leaving EXTERNAL packages out. */
async function bundleCli(name, external) {
  const result = await build({
    entryPoints: { [name]: join(root, 'dist', 'cli', 'main.js') },
    outdir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    // One file, so that one V8 code cache (bin/code-cache.js) covers all of it; the lazily imported
    // parts stay lazy: esbuild wraps each in a function that runs on its first import().
    splitting: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    external,
    // Every import() becomes a require() (of Node's own modules: our lazily imported modules are in the
    // bundle). A real import() would need the script's dynamic import callback, and on Node 20 a script
    // compiled from a V8 code cache has none: "A dynamic import callback was not specified".
    supported: { 'dynamic-import': false },
    minifySyntax: true,
    minifyWhitespace: true,
    // The licence comments of the bundled packages go to NAME.cjs.LEGAL.txt: one of them is not ASCII,
    // and an all-ASCII bundle is a one-byte string for V8 (half the memory, quicker to read and hash).
    legalComments: 'external',
    charset: 'ascii',
    // Our modules and yargs' find files next to them through import.meta.url, which CommonJS has not:
    // the bundle's own URL stands in for it (dist/bundle/NAME.cjs; defined in PROLOGUE above).
    define: { 'import.meta.url': '__mbulkImportMetaUrl' },
    plugins: [
      yargsLocales,
      yargsNoHelpCache,
      undiciAgentAndRequest,
      undiciLazyH2,
      asciiStringWidth,
      zodEnglishOnly,
    ],
    write: false,
    logLevel: 'warning',
  });
  if (yargsLocalesDir === undefined) throw new Error('bundle-cli: yargs was not bundled');
  const file = `${name}.cjs`;
  const bundle = result.outputFiles.find((f) => f.path === join(outdir, file));
  const legal = result.outputFiles.find((f) => f.path === join(outdir, `${file}.LEGAL.txt`));
  if (bundle === undefined || result.outputFiles.length !== (legal === undefined ? 1 : 2))
    throw new Error(
      `bundle-cli: expected ${file} and its LEGAL.txt, got ${result.outputFiles.map((f) => f.path).join(', ')}`,
    );
  if (/[\u0080-\uffff]/.test(bundle.text)) throw new Error(`bundle-cli: ${file} is not all ASCII`);
  // `supported` above turns them into require(): none must be left (a new external would be one).
  if (/(?<![\w$.])import\s*\(/.test(bundle.text))
    throw new Error(`bundle-cli: ${file} has an import(); bin/code-cache.js cannot run it from a code cache`);
  // V8 accepts a code cache for any source of the same length: bin/code-cache.js keys its cache files
  // on this hash of the bundle's text, written on its last line (reading it back costs nothing, where
  // hashing the bundle at each start would cost ~15 ms of loading node:crypto).
  const text = `${PROLOGUE}${bundle.text}${EPILOGUE}`;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 32);
  mkdirSync(outdir, { recursive: true });
  writeFileSync(bundle.path, `${text}//# mbulk-bundle-hash=${hash}\n`);
  if (legal !== undefined) writeFileSync(legal.path, legal.contents);
}

rmSync(outdir, { recursive: true, force: true });
// main.cjs: every command. The MCP SDK (with ajv and its zod compatibility, ~1 MB) stays out of it, so
// no other command's start-up reads or compiles it.
await bundleCli('main', [...EXTERNAL, ...MCP_SDK]);
// mcp.cjs: the same CLI with the SDK inside, which bin/mbulk.js runs for `mbulk mcp`: loading the SDK
// from node_modules (~90 CommonJS files, and a second copy of zod) was most of the server's start-up.
await bundleCli('mcp', EXTERNAL);
cpSync(yargsLocalesDir, join(outdir, 'locales'), { recursive: true });

/**
 * xlsx-thread-worker.cjs: the worker thread that writes an XLSX workbook for the CLI (exceljs, the
 * zip; src/sheets/xlsx-thread-writer.ts finds it beside main.cjs and mcp.cjs). Its own small
 * bundle, run by `new Worker` as an ordinary CommonJS file (no code cache), exceljs left external.
 */
async function bundleXlsxWorker() {
  const result = await build({
    entryPoints: { 'xlsx-thread-worker': join(root, 'dist', 'sheets', 'xlsx-thread-worker.js') },
    outdir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    external: ['exceljs'],
    minifySyntax: true,
    legalComments: 'none',
    charset: 'ascii',
    define: { 'import.meta.url': '__mbulkImportMetaUrl' },
    banner: { js: "var __mbulkImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    write: false,
    logLevel: 'warning',
  });
  const [worker] = result.outputFiles;
  if (worker === undefined || result.outputFiles.length !== 1)
    throw new Error(`bundle-cli: expected xlsx-thread-worker.cjs, got ${result.outputFiles.length} files`);
  if (/[\u0080-\uffff]/.test(worker.text))
    throw new Error('bundle-cli: xlsx-thread-worker.cjs is not all ASCII');
  writeFileSync(worker.path, worker.text);
}
await bundleXlsxWorker();
