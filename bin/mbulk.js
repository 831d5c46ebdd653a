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
// The CLI is bundled (scripts/bundle-cli.mjs, run by `npm run build`): one file to load, not ~200.
const { main } = await import('../dist/bundle/main.js');

process.exitCode = await main(process.argv.slice(2));
