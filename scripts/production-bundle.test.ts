import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';

// Builds the renderer as `vite build` and `vite build --mode e2e` do, into
// temporary directories, and reads what came out: the bundle the desktop app and
// `ptydeck serve` serve must carry no test hook, which would hand every terminal's
// text to any script running in the page.
const configFile = fileURLToPath(new URL('../vite.config.ts', import.meta.url));
const dirs: string[] = [];

/**
 * What `npm test` (scripts/test.mjs) built moments before, with this config, and names in these variables:
 * the very bundles `ptydeck` ships and the end-to-end tests serve. Run alone, the test builds its own.
 */
const BUILT: Record<string, { variable: string; dir: string }> = {
  production: { variable: 'PTYDECK_APP_BUILT', dir: fileURLToPath(new URL('../packages/app/dist', import.meta.url)) },
  e2e: { variable: 'PTYDECK_E2E_APP_BUILT', dir: fileURLToPath(new URL('../packages/app/dist-e2e', import.meta.url)) },
};

async function bundleText(mode: string): Promise<string> {
  const built = BUILT[mode];
  let outDir: string;
  if (built && process.env[built.variable] === built.dir) {
    outDir = built.dir;
  } else {
    outDir = mkdtempSync(join(tmpdir(), `ptydeck-bundle-${mode}-`));
    dirs.push(outDir);
    await build({ configFile, mode, logLevel: 'silent', build: { outDir, emptyOutDir: true, sourcemap: false } });
  }
  const assets = join(outDir, 'assets');
  return readdirSync(assets)
    .filter((name) => name.endsWith('.js'))
    .map((name) => readFileSync(join(assets, name), 'utf8'))
    .join('\n');
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the renderer bundle', () => {
  it('has no test hook in a production build', async () => {
    const text = await bundleText('production');
    expect(text.length).toBeGreaterThan(0);
    // Not toContain: on failure it would print the whole bundle.
    expect(text.includes('__ptydeck'), 'the production bundle mentions __ptydeck').toBe(false);
  });

  it('has the test hook in the e2e build, which the end-to-end tests serve', async () => {
    expect((await bundleText('e2e')).includes('__ptydeck'), 'the e2e bundle defines __ptydeck').toBe(true);
  });
});
