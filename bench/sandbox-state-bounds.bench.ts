/**
 * The sandbox's state and seed reader against hostile state files (issue 41): each must be refused
 * within 1 s and 200 MB, exit non-zero, with a message naming the file, the member and its byte
 * offset. The files are generated here at the issue's sizes (a 40 MB nested file, a 300 MB
 * string, a 70 MiB `sandbox` member, a 300 KiB key, an unknown member, a wrong `sandbox` member;
 * `SCALE=0.1` shrinks the big ones), then the built `mbulk sandbox --sandbox-data FILE --port 0`
 * starts on each under `/usr/bin/time` (the child's own time and peak RSS). The CLI's own start-up
 * (`mbulk --version`, measured the same way, best of 3) is printed, and the time less it: on a
 * loaded machine the start-up alone can pass a second.
 * Needs `npm run build` first. `npm run bench sandbox-state-bounds`.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateStore } from '../src/sandbox/generator.js';
import { SandboxStore } from '../src/sandbox/store.js';

const MAX_SECONDS = 1;
const MAX_RSS_MB = 200;
const MiB = 1 << 20;

const bin = resolve('bin/mbulk.js');
if (!existsSync(resolve('dist/cli/main.js')) && !existsSync(resolve('dist/bundle'))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(2);
}
const scale = Number(process.env['SCALE'] ?? '1');
const dir = mkdtempSync(join(tmpdir(), 'mbulk-state-bounds-bench-'));

const real = new SandboxStore({ state: generateStore({ products: 3, customers: 2, orders: 2, seed: 3 }) })
  .stateChunks('2026-11-28T00:00:00.000Z')
  .join('');
const head = real.slice(0, real.indexOf('"products":[') + '"products":['.length);
const tail = '],"customers":[],"orders":[],"templates":[]}';
const body = real.slice(0, real.lastIndexOf('"sandbox":'));

/** Writes the pieces one after another (a big piece repeated `times`). */
function write(name: string, pieces: (string | [string, number])[]): string {
  const file = join(dir, name);
  const fd = openSync(file, 'w');
  for (const p of pieces) {
    if (typeof p === 'string') writeSync(fd, p);
    else for (let i = 0; i < p[1]; i++) writeSync(fd, p[0]);
  }
  closeSync(fd);
  return file;
}

const nested = Math.round(20_000_000 * scale);
const files: [string, string][] = [
  [
    'nested 40 MB',
    write('nested.json', [head, ['['.repeat(1000), nested / 1000], [']'.repeat(1000), nested / 1000], tail]),
  ],
  [
    'string 300 MB',
    write('string.json', [head, '{"title":"', ['a'.repeat(MiB), Math.round(300 * scale)], '"}', tail]),
  ],
  [
    'sandbox 70 MiB',
    write('big-sandbox.json', [body, '"sandbox":"', ['b'.repeat(MiB), Math.round(70 * scale)], '"}']),
  ],
  ['key 300 KiB', write('big-key.json', [body, '"', ['k'.repeat(1024), 300], '":1}'])],
  ['unknown member', write('unknown.json', [real.slice(0, -1), ',"sandboxx":{}}'])],
  ['wrong sandbox', write('wrong-sandbox.json', [body, '"sandbox":{"version":1}}'])],
];

/** Runs the built CLI with `args` under /usr/bin/time: exit, output, seconds, peak RSS (MB). */
function measure(args: string[]): Promise<{ code: number | null; out: string; seconds: number; mb: number }> {
  const timing = join(dir, 'time.txt');
  return new Promise((done, fail) => {
    const child = spawn('/usr/bin/time', ['-f', '%e %M', '-o', timing, process.execPath, bin, ...args], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const take = (d: Buffer) => (out += d.toString('utf8'));
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => {
      try {
        const [seconds, kib] = readFileSync(timing, 'utf8')
          .trim()
          .split('\n')
          .pop()!
          .split(' ')
          .map(Number) as [number, number];
        done({ code, out, seconds, mb: (kib * 1024) / 1e6 });
      } catch (e) {
        fail(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

try {
  console.log(
    `sandbox state reader bench (node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}); command: /usr/bin/time node bin/mbulk.js sandbox --sandbox-data FILE --port 0`,
  );
  console.log(
    `targets: refused within ${MAX_SECONDS} s (less start-up) and ${MAX_RSS_MB} MB peak RSS, naming the file, the member and its byte`,
  );
  let startup = Infinity;
  for (let i = 0; i < 3; i++) startup = Math.min(startup, (await measure(['--version'])).seconds);
  console.log(`start-up alone (mbulk --version, best of 3): ${startup.toFixed(2)} s`);
  console.log(
    `${'file'.padEnd(16)}${'size'.padEnd(12)}${'exit'.padEnd(6)}${'time'.padEnd(9)}${'less start-up'.padEnd(15)}${'÷ 1 s'.padEnd(8)}${'peak RSS'.padEnd(11)}${'÷ 200 MB'.padEnd(10)}names file, member, byte`,
  );
  for (const [label, file] of files) {
    const r = await measure(['sandbox', '--sandbox-data', file, '--port', '0']);
    const read = Math.max(0, r.seconds - startup);
    const names =
      r.out.includes(file) &&
      /member "|element of "|a key longer|sandbox\./.test(r.out) &&
      / at byte \d+/.test(r.out);
    const missed = read > MAX_SECONDS || r.mb > MAX_RSS_MB || !names || r.code === 0;
    console.log(
      `${label.padEnd(16)}${`${(statSync(file).size / 1e6).toFixed(1)} MB`.padEnd(12)}${String(r.code).padEnd(6)}` +
        `${`${r.seconds.toFixed(2)} s`.padEnd(9)}${`${read.toFixed(2)} s`.padEnd(15)}${(read / MAX_SECONDS).toFixed(2).padEnd(8)}` +
        `${`${r.mb.toFixed(0)} MB`.padEnd(11)}${(r.mb / MAX_RSS_MB).toFixed(2).padEnd(10)}${names ? 'yes' : 'NO'}${missed ? '  MISSED' : ''}`,
    );
    if (process.env['BENCH_VERBOSE']) console.log(`  ${r.out.trim().split('\n')[0]}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
