#!/usr/bin/env node
// When the reader of our output goes away (`mbulk … | head`), keep working and drop the output:
// an apply in progress must not be cut short by a closed pipe.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
// `mbulk --version` answers before the CLI's modules load: it is the one command that needs none.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  const { readFileSync } = await import('node:fs');
  const { URL } = await import('node:url');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
// undici parses HTTP with llhttp compiled to WebAssembly. Once its parser loop is warm, V8 re-compiles
// it with its optimizing compiler on a background thread, and the process cannot exit before that
// finishes: ~0.3 s of CPU after the last request of every command. Tier up only code that stays hot
// far longer (a long bulk run), not the few requests of a short command.
const { setFlagsFromString } = await import('node:v8');
setFlagsFromString('--wasm-tiering-budget=1000000000');
// The CLI is bundled into one CommonJS file (scripts/bundle-cli.mjs, run by `npm run build`): one file
// to read rather than ~200 modules. Compiling it is much of a short command's start-up, so its
// compiled code is kept on disk. Node >= 22.1 does that itself (module.enableCompileCache, in the OS
// temp directory); on older Node bin/code-cache.js keeps a V8 code cache in ~/.cache/mbulk/code-cache/.
// NODE_DISABLE_COMPILE_CACHE=1 turns either off.
const { createRequire, enableCompileCache } = await import('node:module');
const { fileURLToPath, URL: Url } = await import('node:url');
// `mbulk mcp` runs mcp.cjs, the same CLI with the MCP SDK bundled in; every other command main.cjs,
// which leaves the SDK out (either bundle runs any command: this only picks the quicker one to load).
const bundleName = process.argv.includes('mcp') ? 'mcp' : 'main';
const bundle = fileURLToPath(new Url(`../dist/bundle/${bundleName}.cjs`, import.meta.url));
let loaded;
if (typeof enableCompileCache === 'function') {
  enableCompileCache();
  loaded = { exports: createRequire(import.meta.url)(bundle), save() {} };
} else {
  const { loadWithCodeCache } = await import('./code-cache.js');
  loaded = loadWithCodeCache(bundle, process.argv.slice(2));
}
// The code cache is written as a command exits 0 (yargs exits itself after --help), then holding the
// functions the command compiled too; not after a failure or an interruption.
process.once('exit', (code) => {
  if (code === 0) loaded.save();
});

process.exitCode = await loaded.exports.main(process.argv.slice(2));
