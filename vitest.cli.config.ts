import { defineConfig } from 'vitest/config';

// End-to-end tests of the built `palimpsest` command (dist/cli.js), run as a child process.
export default defineConfig({
  test: {
    include: ['test/cli/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
  },
});
