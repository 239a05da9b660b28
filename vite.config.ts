import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';

// Builds the renderer (packages/app) into packages/app/dist, which the core's
// local server serves in web mode and inside the Electron window alike.
export default defineConfig({
  root: 'packages/app',
  base: './',
  plugins: [solid()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // A local desktop app loaded from loopback: one bundle (xterm.js, its WebGL renderer, zod) is fine.
    chunkSizeWarningLimit: 1024,
  },
});
