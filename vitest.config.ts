import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A throwaway HOME and XDG_DATA_HOME per worker: tests never write the real home directory.
    setupFiles: ['test/setup/isolate-home.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: '.mbulk/test-results.json' }]],
  },
});
