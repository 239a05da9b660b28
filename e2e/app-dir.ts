import { fileURLToPath } from 'node:url';

/**
 * The renderer the e2e server serves: the bundle `vite build --mode e2e` writes
 * (global-setup.ts builds it before every run), the only one with the test hook
 * `window.__ptydeck`. vite.config.ts names the same directory.
 */
export const E2E_APP_DIR = fileURLToPath(new URL('../packages/app/dist-e2e', import.meta.url));
