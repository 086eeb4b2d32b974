import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // Removes the temp dirs each test file made, whatever the file's own hooks did.
    setupFiles: ['./test/helpers/cleanup.ts'],
    // A temp directory of the run's own; the run fails if a test leaves anything in it.
    // A HOME of the run's own; the run fails if anything appears in the real one.
    // The run fails at once if dist/ (what the end-to-end tests spawn) is older than src/.
    globalSetup: ['./test/helpers/private-tmp.ts', './test/helpers/private-home.ts', './test/helpers/dist-fresh.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: forks keep spawned CLIs and servers isolated without oversubscribing.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
