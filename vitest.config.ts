import { defineConfig } from 'vitest/config';

// Three projects (tiers): `unit` (test/unit: no network, no child processes), `integration`
// (test/integration: real HTTP on loopback port 0, in process) and `e2e` (test/e2e: the built
// binary in child processes, pseudo-terminals, Chromium, the packed package). `npm test` runs unit
// and integration; `npm run test:e2e` runs e2e; `npm run check` runs all three.
export default defineConfig({
  test: {
    // Rebuilds dist/ when src/ is newer: tests that run the built binary or import the package by name.
    globalSetup: ['test/helpers/build-dist.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A throwaway HOME and XDG_DATA_HOME per worker: tests never write the real home directory.
    setupFiles: ['test/setup/isolate-home.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: '.mbulk/test-results.json' }]],
    projects: [
      // Unit test files share their workers' module cache (isolate: false): the project is 92 files
      // whose bodies take ~14 s in all, and a fresh fork per file made it 69 s, the rest being
      // imports and transforms (20 s shared). No unit test mocks a module, stubs a global or an
      // environment variable, fakes timers or changes directory, so nothing leaks between files.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
