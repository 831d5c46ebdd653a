/**
 * `npm run bench [-- NAME ...]`: runs the benchmarks in bench/ one after another (each in its own
 * process, with its default sizes) and prints their figures. Give names (e.g. `stock readers`) to run
 * only those. Benchmarks are not tests: they print figures and ratios against the targets of the
 * issues, and never fail a build.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const all = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .sort();
const chosen = wanted.length > 0 ? all.filter((name) => wanted.includes(name)) : all;
if (chosen.length === 0) {
  console.error(`no benchmark named ${wanted.join(', ')}; available: ${all.join(', ')}`);
  process.exit(2);
}
const failed: string[] = [];
for (const name of chosen) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${name}.bench.ts`)], {
    stdio: 'inherit',
  });
  console.log(`(${name}: ${((Date.now() - started) / 1000).toFixed(1)} s, exit ${r.status ?? r.signal})`);
  if (r.status !== 0) failed.push(name);
}
if (failed.length > 0) {
  console.error(`\nbenchmarks that did not finish cleanly: ${failed.join(', ')}`);
  process.exit(1);
}
