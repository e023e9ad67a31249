import { defineConfig } from 'vitest/config';

// The Electron smoke test: the built app (out/, from `npm run build`) in a real Electron window
// through playwright's _electron. Skips, saying why, where the Electron binary or a display is missing.
export default defineConfig({
  test: {
    include: ['test/electron/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
