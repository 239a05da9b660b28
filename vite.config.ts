import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';

/** The mode of the end-to-end test build: the only bundle with the test hook (`window.__ptydeck`) in it. */
export const E2E_MODE = 'e2e';

// Builds the renderer (packages/app) into packages/app/dist, which the core's
// local server serves in web mode and inside the Electron window alike.
// `vite build --mode e2e` builds the test bundle into packages/app/dist-e2e
// instead, so the bundle people run never carries test hooks.
export default defineConfig(({ mode }) => ({
  root: 'packages/app',
  base: './',
  plugins: [solid()],
  build: {
    outDir: mode === E2E_MODE ? 'dist-e2e' : 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // A local desktop app loaded from loopback: one bundle (xterm.js, its WebGL renderer, zod) is fine.
    chunkSizeWarningLimit: 1024,
  },
}));
