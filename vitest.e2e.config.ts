import { defineConfig } from 'vitest/config';

// End-to-end tests: the built renderer (out/renderer, from `npm run build`) served by the web host
// in-process, driven in Debian's Chromium (/usr/bin/chromium) through playwright's library API.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
