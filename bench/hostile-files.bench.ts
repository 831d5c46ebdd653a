/**
 * Hostile files (issue 11): each must be refused in < 10 s and < 1 GB RSS with a SheetError
 * naming the file and the limit. Generated here (sizes of the reports where practical: the 60M-cell
 * row is 2M cells here, the bomb 600 MiB; `SCALE` env scales them), each read in its own process
 * with its RSS sampled every 20 ms.
 * `npm run bench hostile-files`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeHostileFiles } from '../test/helpers/hostile-files.js';

const scale = Number(process.env['SCALE'] ?? '1');
const dir = mkdtempSync(join(tmpdir(), 'mbulk-hostile-bench-'));
const files = writeHostileFiles(dir, {
  bombMiB: Math.round(600 * scale), // inflates 600 MiB from < 1 MiB
  wideCells: Math.round(2_000_000 * scale), // one row
  csvColumns: Math.round(2_000_000 * scale),
  unknownHeaders: Math.round(200_000 * scale),
  cellMiB: Math.round(50 * scale),
});
const reader = pathToFileURL(resolve('src/sheets/read-sheet.ts')).href;
const child = `
  const { readSheet } = await import(${JSON.stringify(reader)});
  const started = performance.now();
  // Sampled: ru_maxrss survives exec on Linux, so it would report this bench's own generator.
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 20);
  let code = 'accepted';
  try { for await (const _ of readSheet(process.argv[1])) {} } catch (e) { code = e.code ?? e.name; }
  console.log(JSON.stringify({ ms: Math.round(performance.now() - started), code, rssMiB: Math.round(Math.max(peak, process.memoryUsage.rss()) / 1048576) }));
  clearInterval(sampler);
`;
console.log('file                  size        refused as             time      peak RSS   within limits');
for (const [name, file] of Object.entries(files)) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child, file], {
    encoding: 'utf8',
  });
  const line = r.stdout.trim().split('\n').pop() ?? '{}';
  const { ms, code, rssMiB } = JSON.parse(line) as { ms: number; code: string; rssMiB: number };
  const ok = code !== 'accepted' && ms < 10_000 && rssMiB < 1024;
  console.log(
    `${name.padEnd(22)}${`${(statSync(file).size / 1048576).toFixed(1)} MiB`.padEnd(12)}${code.padEnd(23)}${`${(ms / 1000).toFixed(2)} s`.padEnd(10)}${`${rssMiB} MiB`.padEnd(11)}${ok ? 'yes' : 'NO'}`,
  );
}
rmSync(dir, { recursive: true, force: true });
