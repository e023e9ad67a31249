import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

// `electron-vite build` writes out/main, out/preload and out/renderer. It does not need the
// Electron binary (the development machine cannot download it), so this builds on machines without one.
export default defineConfig({
  main: {
    build: {
      rolldownOptions: {
        input: {
          index: resolve(import.meta.dirname, 'src/main/electron/index.ts'),
          // The token counter's worker pool looks for token-worker.js next to the main bundle.
          'token-worker': resolve(import.meta.dirname, 'src/main/tokens/worker.ts'),
          // A parallel load looks for load-worker.js next to the main bundle (src/main/session/parallel-load.ts).
          'load-worker': resolve(import.meta.dirname, 'src/main/session/range-worker.ts'),
          // The session index reads sessions on workers that look for extract-worker.js there too (src/main/catalog/extract-pool.ts).
          'extract-worker': resolve(import.meta.dirname, 'src/main/catalog/extract-worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload must be CommonJS, with everything bundled in.
      lib: { entry: resolve(import.meta.dirname, 'src/preload/index.ts'), formats: ['cjs'], fileName: () => 'index.cjs' },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'src/renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(import.meta.dirname, 'out/renderer'),
      // Served over loopback or an SSH tunnel too: keep it small. PALIMPSEST_RENDERER_MINIFY=0 keeps
      // the names, for a readable CPU profile (bench/ui-bench.ts --profile).
      minify: process.env.PALIMPSEST_RENDERER_MINIFY !== '0',
      rolldownOptions: {
        input: resolve(import.meta.dirname, 'src/renderer/index.html'),
      },
    },
  },
});
