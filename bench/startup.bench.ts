/**
 * Start-up benchmark: how long the `mbulk` binary takes for commands people run by hand.
 *
 *   npx tsx bench/startup.bench.ts [--runs 10] [--compare-unbundled]
 *
 * Targets (issue 12), median of 10 runs on this machine:
 * - `mbulk --version` ≤ 2× the time of `node -e 0`;
 * - `mbulk whoami` against a local sandbox ≤ 0.35 s.
 * `mbulk --help` is measured too (it loads the parser and every command's options).
 *
 * The bundle's compiled code is cached on disk (bin/code-cache.js on Node < 22.1, Node's own compile
 * cache after): `mbulk whoami` and `mbulk --help` run warm (the cache written by the warm-up round,
 * in a cache directory of this benchmark's own), and again `(cold)`, each run with a fresh empty cache
 * directory (what the first command after an install or upgrade pays, cache written included), and
 * `whoami (no cache)` with NODE_DISABLE_COMPILE_CACHE=1.
 *
 * A sandbox is started in this process (127.0.0.1, port 0, seeded from samples/store.json in a
 * temporary state file); each command is a child process of `node bin/mbulk.js …`, timed from spawn
 * to exit, with the token in MERCHANT_API_TOKEN. The commands run in interleaved rounds so that load
 * from other processes on a shared machine falls on all of them alike; the load average is printed.
 * `--compare-unbundled` also times the same commands through dist/cli/main.js (the modules tsc
 * emits, unbundled), which is what bin/mbulk.js ran before the CLI was bundled.
 * Needs a build (`npm run build`): it runs what users run.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startSandbox } from '../src/sandbox/server.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const runsAt = argv.indexOf('--runs');
const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 10;
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs an integer >= 1');
const compareUnbundled = argv.includes('--compare-unbundled');

interface Case {
  name: string;
  args: string[];
  /** Environment changes for one run (called before each run). */
  env?: () => NodeJS.ProcessEnv;
}

interface Timing {
  wall: number;
  cpu: number;
}

/** Preloaded in each child: writes its CPU time (user + system, seconds) on fd 3 as it exits. */
const CPU_REPORTER = `process.on('exit', () => {
  const u = process.cpuUsage();
  try { require('node:fs').writeSync(3, String((u.user + u.system) / 1e6)); } catch {}
});
`;

/**
 * Runs `node ARGS` to completion; resolves to its wall time (spawn to exit) and the CPU time it
 * reported. Fails on a non-zero exit.
 */
function timeNode(args: string[], env: NodeJS.ProcessEnv, reporter: string): Promise<Timing> {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--require', reporter, ...args], {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let cpu = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdio[3]?.on('data', (chunk: Buffer) => (cpu += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - started) / 1e9;
      if (code === 0) done({ wall, cpu: Number(cpu) });
      else fail(new Error(`node ${args.join(' ')} exited ${code}: ${stderr.trim()}`));
    });
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const work = mkdtempSync(join(tmpdir(), 'mbulk-startup-bench-'));
const sandbox = await startSandbox({
  port: 0,
  host: '127.0.0.1',
  dataFile: join(work, 'sandbox.json'),
  seed: join(root, 'samples', 'store.json'),
});
try {
  const bin = join(root, 'bin', 'mbulk.js');
  // Node >= 22.1 keeps its compile cache under the OS temp directory, ours under XDG_CACHE_HOME.
  const warmCache = join(work, 'warm-cache');
  mkdirSync(warmCache);
  const warm = () => ({ XDG_CACHE_HOME: warmCache, NODE_COMPILE_CACHE: warmCache });
  let coldRuns = 0;
  const cold = () => {
    const dir = join(work, `cold-cache-${coldRuns++}`);
    mkdirSync(dir);
    return { XDG_CACHE_HOME: dir, NODE_COMPILE_CACHE: dir };
  };
  const whoami = [bin, 'whoami', '--base-url', sandbox.url];
  const cases: Case[] = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'mbulk --version', args: [bin, '--version'] },
    { name: 'mbulk --help', args: [bin, '--help'], env: warm },
    { name: 'mbulk whoami', args: whoami, env: warm },
    { name: '--help (cold)', args: [bin, '--help'], env: cold },
    { name: 'whoami (cold)', args: whoami, env: cold },
    { name: 'whoami (no cache)', args: whoami, env: () => ({ NODE_DISABLE_COMPILE_CACHE: '1' }) },
  ];
  if (compareUnbundled) {
    const entry = join(work, 'unbundled.mjs');
    const mainUrl = pathToFileURL(join(root, 'dist', 'cli', 'main.js')).href;
    writeFileSync(
      entry,
      `const { main } = await import(${JSON.stringify(mainUrl)});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
    );
    cases.push(
      { name: 'unbundled --help', args: [entry, '--help'] },
      { name: 'unbundled whoami', args: [entry, 'whoami', '--base-url', sandbox.url] },
    );
  }
  const env: NodeJS.ProcessEnv = { ...process.env, MERCHANT_API_TOKEN: sandbox.token, NO_COLOR: '1' };
  delete env['MERCHANT_API_URL'];
  const reporter = join(work, 'cpu-reporter.cjs');
  writeFileSync(reporter, CPU_REPORTER);
  const timings = new Map<string, Timing[]>(cases.map((c) => [c.name, []]));
  const loadBefore = loadavg()[0] ?? 0;
  // One warm-up round (file system cache), not counted.
  const envOf = (c: Case): NodeJS.ProcessEnv => ({ ...env, ...c.env?.() });
  for (const c of cases) await timeNode(c.args, envOf(c), reporter);
  for (let round = 0; round < runs; round++) {
    for (const c of cases) timings.get(c.name)?.push(await timeNode(c.args, envOf(c), reporter));
  }
  const loadAfter = loadavg()[0] ?? 0;

  const wall = (name: string) => median((timings.get(name) ?? []).map((t) => t.wall));
  const cpu = (name: string) => median((timings.get(name) ?? []).map((t) => t.cpu));
  const ms = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`.padStart(7);
  console.log(
    `node ${process.version}, ${runs} runs each, load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}`,
  );
  console.log('  (wall: spawn to exit; cpu: user + system time of the child, which load inflates less)');
  for (const [name, values] of timings) {
    const walls = values.map((t) => t.wall).sort((a, b) => a - b);
    console.log(
      `  ${name.padEnd(18)} wall median ${ms(wall(name))} (min ${ms(walls[0] ?? 0)}, max ${ms(walls.at(-1) ?? 0)})   cpu median ${ms(cpu(name))}`,
    );
  }
  const ratio = wall('mbulk --version') / wall('node -e 0');
  const whoamiWall = wall('mbulk whoami');
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(`target: mbulk --version ≤ 2× node -e 0: ${ratio.toFixed(2)}× (${verdict(ratio <= 2)})`);
  console.log(
    `target: mbulk whoami ≤ 0.35 s: ${whoamiWall.toFixed(3)} s, ${(whoamiWall / 0.35).toFixed(2)}× the target (${verdict(whoamiWall <= 0.35)}); cpu ${cpu('mbulk whoami').toFixed(3)} s`,
  );
  // Load from other processes stretches every figure; what the CLI adds over Node itself does not
  // depend on it as much.
  console.log(
    `mbulk whoami over node -e 0: +${((whoamiWall - wall('node -e 0')) * 1000).toFixed(0)} ms wall, +${((cpu('mbulk whoami') - cpu('node -e 0')) * 1000).toFixed(0)} ms cpu (${(cpu('mbulk whoami') / cpu('node -e 0')).toFixed(1)}× its cpu)`,
  );
  console.log(
    `code cache: whoami cold ${ms(wall('whoami (cold)'))} → warm ${ms(wall('mbulk whoami'))} (no cache ${ms(wall('whoami (no cache)'))}); --help cold ${ms(wall('--help (cold)'))} → warm ${ms(wall('mbulk --help'))}`,
  );
  if (compareUnbundled) {
    const before = wall('unbundled whoami');
    console.log(
      `unbundled whoami: wall ${before.toFixed(3)} s, cpu ${cpu('unbundled whoami').toFixed(3)} s; the bundle takes ${(whoamiWall / before).toFixed(2)}× the wall time and ${(cpu('mbulk whoami') / cpu('unbundled whoami')).toFixed(2)}× the cpu`,
    );
  }
} finally {
  await sandbox.close();
  rmSync(work, { recursive: true, force: true });
}
