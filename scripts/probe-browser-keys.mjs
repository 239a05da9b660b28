// Which key chords does a normal (windowed) Chromium pass to a page? Headless
// Chromium and Playwright's synthetic keys skip the browser's own shortcuts,
// so this sends real X key events with xdotool to a windowed Chromium under
// Xvfb and reports what the page saw. It informed the panel's browser bindings
// (packages/app/src/terminal/shortcuts.ts).
//
//   apt-get install -y xvfb xdotool
//   xvfb-run -a node scripts/probe-browser-keys.mjs ctrl+Next ctrl+shift+Next alt+shift+w ctrl+shift+w
//
// Chords are xdotool key names. A second tab is open (so tab switching has
// somewhere to go); a chord that closes the window ends the run. Ctrl+Shift+T
// reaches the page only until a tab has been closed: then it reopens that tab.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { findChromium } from './find-chromium.mjs';

const chords = process.argv.slice(2);
if (chords.length === 0) {
  process.stderr.write('usage: xvfb-run -a node scripts/probe-browser-keys.mjs CHORD...\n');
  process.exit(2);
}
const profile = mkdtempSync(join(tmpdir(), 'ptydeck-keyprobe-'));
// A real profile, not an off-the-record context: tab restore (Ctrl+Shift+T) only exists in one.
const context = await chromium.launchPersistentContext(profile, {
  headless: false,
  viewport: null,
  executablePath: findChromium() ?? undefined,
  args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--no-first-run', '--disable-gpu'],
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.setContent(
    "<textarea autofocus></textarea><script>window.seen=[];addEventListener('keydown',(e)=>{seen.push([e.ctrlKey&&'Ctrl',e.altKey&&'Alt',e.shiftKey&&'Shift',e.code].filter(Boolean).join('+'));e.preventDefault()},true)</script>",
  );
  const other = await context.newPage();
  await other.setContent('another tab');
  await page.bringToFront();
  await page.focus('textarea');
  const window = execFileSync('xdotool', ['search', '--onlyvisible', '--class', 'chromium']).toString().trim().split('\n').at(-1);
  execFileSync('xdotool', ['windowfocus', '--sync', window]);
  for (const chord of chords) {
    const before = await page.evaluate(() => window.seen.length).catch(() => null);
    if (before === null) break;
    execFileSync('xdotool', ['key', '--clearmodifiers', chord]);
    // A plain key after it: once the page has that, it has whatever of the chord it will get.
    execFileSync('xdotool', ['key', 'a']);
    const seen = await page
      .waitForFunction((n) => window.seen.length > n && window.seen.at(-1) === 'KeyA', before, { timeout: 3000 })
      .then(() => page.evaluate((n) => window.seen.slice(n, -1).filter((code) => !/^(Ctrl|Alt|Shift|\+)*(Control|Alt|Shift)(Left|Right)$/.test(code)), before))
      .catch(() => null);
    const verdict = seen === null ? 'NOT the page (the browser took it, or the page lost focus)' : seen.length > 0 ? `page: ${seen.join(', ')}` : 'NOT the page';
    process.stdout.write(`${chord.padEnd(26)} ${verdict}\n`);
    if (seen === null) break;
  }
} finally {
  await context.close().catch(() => {});
  // A window closed by a chord may still be writing its profile as it goes.
  try {
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  } catch {
    process.stderr.write(`left ${profile} behind\n`);
  }
}
