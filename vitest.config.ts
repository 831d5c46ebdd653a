import { readFileSync, readdirSync, statfsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, sep } from 'node:path';
import { defineConfig } from 'vitest/config';

// Three tiers: `unit` (test/unit: no network, no child processes), `integration` (test/integration:
// real HTTP on loopback port 0, in process; its files that touch globals run as the project
// `integration-isolated`) and `e2e` (test/e2e: the built binary in child processes,
// pseudo-terminals, Chromium, the packed package). `npm test` runs unit and integration;
// `npm run test:e2e` runs e2e; `npm run check` runs all of them.
/**
 * Test files that change what other files would see in a shared worker: a mocked module
 * (vi.mock), a stubbed environment variable or global, a spy on a global, fake timers, a changed
 * environment or working directory. Found by reading the files, so a new one is isolated too (a
 * vi.mock in a shared worker mocks nothing once another file has imported the module).
 */
const TOUCHES_GLOBALS =
  /\bvi\.(mock|doMock|stubEnv|stubGlobal|spyOn|useFakeTimers)\b|process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env|process\.chdir/;
const touchingGlobals = (dir: string): string[] =>
  readdirSync(join(import.meta.dirname, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => join(dir, file).split(sep).join('/'))
    .filter((file) => TOUCHES_GLOBALS.test(readFileSync(join(import.meta.dirname, file), 'utf8')));
const ISOLATED_UNIT = touchingGlobals('test/unit');
const ISOLATED_INTEGRATION = touchingGlobals('test/integration');

/**
 * The in-process tiers' scratch directory (their TMPDIR): `/dev/shm/mbulk-tests-<pid>` when that
 * RAM disk has 1 GiB free, else the system's. A test's run directories write every file
 * atomically, fsynced with its directory: on this machine's disk a third of the migrations file's
 * time went to those waits, on a RAM disk none (no test can tell a synced file from one not
 * synced: the journal's and backup's durability is tested by killing processes, whose writes the
 * page cache keeps). The e2e tier keeps the system's. Made and removed by test/helpers/scratch-dir.ts.
 */
function ramScratch(): Record<string, string> {
  try {
    const shm = statfsSync('/dev/shm');
    if (shm.bavail * shm.bsize < 2 ** 30) return {};
  } catch {
    return {};
  }
  const dir = `/dev/shm/mbulk-tests-${process.pid}`;
  process.env['MBULK_TEST_SCRATCH'] = dir;
  return { TMPDIR: dir };
}
const SCRATCH_ENV = ramScratch();

export default defineConfig({
  test: {
    // Rebuilds dist/ when src/ is newer: tests that run the built binary or import the package by name.
    globalSetup: ['test/helpers/build-dist.ts', 'test/helpers/scratch-dir.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One worker per core, at least two. Vitest's default in a run is one fewer than the cores: a
    // single worker on a 2-core machine, every file in turn while the other core idles, and while a
    // test waits on a sandbox's latency, a child process or a socket, nothing else runs.
    maxWorkers: Math.max(2, availableParallelism()),
    // A throwaway HOME and XDG_DATA_HOME per worker: tests never write the real home directory.
    setupFiles: ['test/setup/isolate-home.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: '.mbulk/test-results.json' }]],
    projects: [
      // Unit test files share their workers' module cache (isolate: false): the project is 92 files
      // whose bodies take ~14 s in all, and a fresh fork per file made it 69 s, the rest being
      // imports and transforms (20 s shared). The few that touch globals (above) run isolated.
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: ISOLATED_UNIT,
          isolate: false,
          env: SCRATCH_ENV,
        },
      },
      { extends: true, test: { name: 'unit-isolated', include: ISOLATED_UNIT, env: SCRATCH_ENV } },
      // Integration test files share their workers' module cache too (a fresh fork per file spent
      // much of the tier importing src again), except those that touch globals (above): they run
      // isolated, in their own project.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: ISOLATED_INTEGRATION,
          isolate: false,
          env: SCRATCH_ENV,
        },
      },
      {
        extends: true,
        test: { name: 'integration-isolated', include: ISOLATED_INTEGRATION, env: SCRATCH_ENV },
      },
      // e2e tests wait on child processes, a pseudo-terminal, Chromium or npm pack, whose time grows
      // with the machine's load (two workers, each with its children, on a shared 2-core machine):
      // a longer guard against a hang than the in-process tiers'.
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000 },
      },
    ],
  },
});
