#!/usr/bin/env node
// When the reader of our output goes away (`mbulk … | head`), keep working and drop the output:
// an apply in progress must not be cut short by a closed pipe.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
const { main } = await import('../dist/cli/main.js');

process.exitCode = await main(process.argv.slice(2));
