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
// Node >= 22.1 can keep the compiled code of the bundle on disk (in the OS temp directory; off with
// NODE_DISABLE_COMPILE_CACHE=1): later starts skip most of the parse and compile. Older Node: no-op.
const { enableCompileCache } = await import('node:module');
if (typeof enableCompileCache === 'function') enableCompileCache();
// The CLI is bundled (scripts/bundle-cli.mjs, run by `npm run build`): a few chunks to load rather than
// ~200 modules.
const { main } = await import('../dist/bundle/main.js');

process.exitCode = await main(process.argv.slice(2));
