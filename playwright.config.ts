import { defineConfig } from '@playwright/test';

// End-to-end tests drive the real renderer in Chromium against web mode: the
// same local server and renderer the Electron window uses. scripts/e2e.mjs
// finds a Chromium and passes it in PTYDECK_CHROMIUM.
const executablePath = process.env.PTYDECK_CHROMIUM;
const launchOptions = {
  ...(executablePath ? { executablePath } : {}),
  args: [
    // Root in CI cannot use Chromium's sandbox; this is the test browser, not the app.
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

export default defineConfig({
  testDir: 'e2e',
  // Builds the renderer with its test hook into packages/app/dist-e2e, which the fixtures serve.
  globalSetup: './e2e/global-setup.ts',
  outputDir: 'test-results/e2e-artifacts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // A spec alone keeps about one of CI's two cores busy (browser, host, shells, mostly waiting on each
  // other), and each has its own host, state dir, HOME and browser, so two at once take the suite from
  // about 290 s to about 200 s. PTYDECK_E2E_WORKERS=1 runs one spec file at a time.
  workers: Number(process.env.PTYDECK_E2E_WORKERS ?? 2),
  retries: 0,
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    viewport: { width: 1280, height: 800 },
  },
  projects: [
    {
      name: 'chromium',
      testIgnore: /electron\.spec\.ts|windowed\.spec\.ts/,
      use: { browserName: 'chromium', launchOptions },
    },
    {
      // Real windows on the one X display (on Xvfb without a display, see scripts/e2e.mjs): the windowed Chromium, where
      // the browser's own shortcuts see real key events first, and Electron's. One at a time: a window that opens takes
      // the X keyboard focus the windowed spec's keys go to. The headless browsers beside them open no window.
      name: 'windowed',
      testMatch: /windowed\.spec\.ts|electron\.spec\.ts/,
      workers: 1,
      use: { browserName: 'chromium', headless: false, launchOptions },
    },
  ],
});
