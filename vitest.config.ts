import { defineConfig } from 'vitest/config';

// Unit, property and golden tests. The CLI's end-to-end tests need the built bundle and run from
// vitest.cli.config.ts after `npm run build`; the UI's run in Chromium from vitest.e2e.config.ts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // test/electron launches the built app in Electron: vitest.electron.config.ts, after the build.
    exclude: ['test/cli/**', 'test/e2e/**', 'test/electron/**'],
    environment: 'node',
    testTimeout: 30_000,
  },
});
