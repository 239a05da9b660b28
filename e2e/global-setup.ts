import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { E2E_APP_DIR } from './app-dir.js';
import { closeRunTmpReporting, openRunTmp } from '../scripts/run-tmp.mjs';

/**
 * Builds the renderer's end-to-end bundle (`vite build --mode e2e`) before
 * every run, however the suite is started (scripts/e2e.mjs, npx playwright):
 * the production bundle has no test hook, and one left from an earlier run
 * could be stale. scripts/test.mjs builds it earlier, beside its typechecks, and
 * names the directory it built in PTYDECK_E2E_APP_BUILT.
 */
export default async function globalSetup(): Promise<(() => void) | undefined> {
  const teardown = runTmp();
  // npm test (scripts/test.mjs) builds it beside its typechecks, moments before, and says so.
  if (process.env.PTYDECK_E2E_APP_BUILT === E2E_APP_DIR) return teardown;
  await build({
    configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
    mode: 'e2e',
    logLevel: 'warn',
    build: { outDir: E2E_APP_DIR },
  });
  return teardown;
}

/**
 * The run's temporary directory and HOME (scripts/run-tmp.mjs) when Playwright was started by hand; the
 * workers forked after this inherit them, so the browsers' profiles and the specs' directories go with the
 * run. scripts/e2e.mjs made one already, before the runner started, and removes it.
 */
function runTmp(): (() => void) | undefined {
  if (process.env.PTYDECK_RUN_TMP) return undefined;
  const { root, env } = openRunTmp();
  Object.assign(process.env, env);
  return () => closeRunTmpReporting(root, 'e2e');
}
