// Builds the web app (issue 16) into dist/web, served by `catalog serve` (src/http/web.ts).
// No plugin: Oxc compiles the JSX for Preact; nothing is fetched at run time (no CDN).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // One small bundle: the first page needs all of it anyway.
    modulePreload: { polyfill: false },
  },
});
