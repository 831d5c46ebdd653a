/**
 * Hostile files (issue 11): each must be refused in < 10 s and < 1 GB peak RSS, exit 2, with a
 * message naming the file and the limit. Issue 22 added a workbook within the ratio limit whose
 * shared strings inflate to 480 MiB (refused by the 64 MiB cap), and the largest one accepted
 * (shared strings just under the cap), which must be read within the same time and memory. The files are generated here at the sizes of the issue's
 * report (test/helpers/hostile-files.ts, ISSUE_SIZES; `SCALE=0.1` shrinks them), then the built
 * `mbulk import stock FILE` runs on each in a child process under `/usr/bin/time`, whose figures
 * are the child's own (wait4's rusage: not inherited from this generator, unlike a ru_maxrss read
 * in a process spawned from here). Needs `npm run build` first.
 * `npm run bench hostile-files`.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_SHEET_LIMITS } from '../src/sheets/sheet-limits.js';
import { ISSUE_SIZES, writeHostileFiles, writeLowRatioSharedStrings } from '../test/helpers/hostile-files.js';
import type { HostileSizes } from '../test/helpers/hostile-files.js';

const MAX_SECONDS = 10;
const MAX_RSS_MIB = 1024;

const bin = resolve('bin/mbulk.js');
if (!existsSync(resolve('dist/cli/main.js')) && !existsSync(resolve('dist/bundle'))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(2);
}
const scale = Number(process.env['SCALE'] ?? '1');
const sizes = Object.fromEntries(
  Object.entries(ISSUE_SIZES).map(([k, v]) => [k, Math.max(1, Math.round(v * scale))]),
) as unknown as HostileSizes;
const dir = mkdtempSync(join(tmpdir(), 'mbulk-hostile-bench-'));
const sandbox = join(dir, 'sandbox.json');
copyFileSync(resolve('samples/store.json'), sandbox);
const sandboxBefore = readFileSync(sandbox, 'utf8');

try {
  const generated = Date.now();
  const files = writeHostileFiles(dir, sizes);
  console.log(
    `generated in ${((Date.now() - generated) / 1000).toFixed(1)} s at ${scale === 1 ? 'the issue sizes' : `SCALE=${scale}`}: ${JSON.stringify(sizes)}`,
  );
  console.log(
    `command: /usr/bin/time -f '%e %U %S %M' node bin/mbulk.js import stock FILE --apply --yes --sandbox-data SANDBOX`,
  );
  const base = join(dir, 'baseline-sandbox.json');
  copyFileSync(resolve('samples/store.json'), base);
  const baseline = measure(resolve('samples/stock.csv'), base);
  console.log(
    `baseline, a valid 3-row stock file applied (samples/stock.csv): exit ${baseline.r.status}, ${baseline.seconds.toFixed(2)} s (CPU ${baseline.cpu.toFixed(2)} s), ${Math.round(baseline.kib / 1024)} MiB`,
  );
  console.log(
    `${'file'.padEnd(22)}${'size'.padEnd(11)}${'exit'.padEnd(6)}${'time'.padEnd(9)}${'CPU'.padEnd(9)}${'peak RSS'.padEnd(11)}${'names file+limit'.padEnd(18)}within limits`,
  );
  let failures = 0;
  let measured = 0;
  const only = process.env['ONLY'];
  for (const [name, file] of Object.entries(files)) {
    if (only !== undefined && !name.startsWith(only)) continue;
    measured++;
    const { r, seconds, cpu, kib } = measure(file, sandbox);
    const rssMiB = Math.round(kib / 1024);
    const stderr = r.stderr ?? '';
    const named =
      stderr.includes(file) && /limit|at most|longer than/i.test(stderr) && !/\n\s+at /.test(stderr);
    const ok = r.status === 2 && named && seconds < MAX_SECONDS && rssMiB < MAX_RSS_MIB;
    if (!ok) failures++;
    console.log(
      `${name.padEnd(22)}${mib(statSync(file).size).padEnd(11)}${String(r.status ?? r.signal).padEnd(6)}${`${seconds.toFixed(2)} s`.padEnd(9)}${`${cpu.toFixed(2)} s`.padEnd(9)}${`${rssMiB} MiB`.padEnd(11)}${(named ? 'yes' : 'NO').padEnd(18)}${ok ? 'yes' : 'NO'}`,
    );
    if (!ok || process.env['VERBOSE'])
      console.log(`  stderr: ${stderr.trim().split('\n').slice(-3).join('\n          ')}`);
  }
  // The largest shared strings accepted (issue 22): read in full, within the same time and memory.
  const atCap = join(dir, 'shared-strings-at-cap.xlsx');
  writeLowRatioSharedStrings(atCap, Math.floor(DEFAULT_SHEET_LIMITS.maxSharedStringsBytes / 2 ** 20) - 1);
  const cap = measure(atCap, join(dir, 'baseline-sandbox.json'));
  const capOk = cap.r.status !== 2 && cap.seconds < MAX_SECONDS && cap.kib / 1024 < MAX_RSS_MIB;
  if (!capOk) failures++;
  console.log(
    `${'shared-strings-at-cap'.padEnd(22)}${mib(statSync(atCap).size).padEnd(11)}${String(cap.r.status ?? cap.r.signal).padEnd(6)}${`${cap.seconds.toFixed(2)} s`.padEnd(9)}${`${cap.cpu.toFixed(2)} s`.padEnd(9)}${`${Math.round(cap.kib / 1024)} MiB`.padEnd(11)}${'(read, not refused)'.padEnd(18)}${capOk ? 'yes' : 'NO'}`,
  );
  const untouched = readFileSync(sandbox, 'utf8') === sandboxBefore;
  console.log(`sandbox state unchanged: ${untouched ? 'yes' : 'NO'}`);
  console.log(
    failures === 0 && untouched
      ? `all ${measured} refused within ${MAX_SECONDS} s and ${MAX_RSS_MIB} MiB`
      : `${failures} file(s) NOT refused within the limits`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Runs `mbulk import stock FILE --apply --yes` under /usr/bin/time: exit, stderr, seconds, peak RSS. */
function measure(file: string, sandboxFile: string) {
  const timing = join(dir, 'time.txt');
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%e %U %S %M',
      '-o',
      timing,
      process.execPath,
      bin,
      'import',
      'stock',
      file,
      '--apply',
      '--yes',
      '--sandbox-data',
      sandboxFile,
    ],
    { encoding: 'utf8', cwd: dir, env: { ...process.env, NO_COLOR: '1' } },
  );
  const [seconds, user, system, kib] = readFileSync(timing, 'utf8')
    .trim()
    .split('\n')
    .pop()!
    .split(' ')
    .map(Number) as [number, number, number, number];
  return { r, seconds, cpu: user + system, kib };
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
