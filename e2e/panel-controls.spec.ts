// Panel behaviour around the terminals: resizing the panel resizes the PTY, and
// pinning keeps an exited agent tab past its linger.
import { AGENT_NAME, expect, expectScreen, panelRegion, test } from './fixtures.js';

test('dragging the panel taller resizes the agent\'s PTY to the rows on screen', async ({ panel: page, agent, server }) => {
  const created = await agent.call<{ id: string }>('terminal_create', { title: 'sized', cols: 120, rows: 32 });
  await expectScreen(page, created.id, /^e2e#/m);
  // The panel fits the terminal to itself and tells the PTY.
  await expect.poll(async () => (await server.session(created.id))?.cols).not.toBe(120);
  const before = (await server.session(created.id))!;

  const handle = page.getByTestId('panel-resize-handle');
  const box = (await handle.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, box.y - 200, { steps: 5 });
  await page.mouse.up();
  // The drag fits the terminal at each step, so wait for the last fit: xterm.js
  // fills the taller panel, no fit is pending, and the PTY has that size.
  type Sizes = { cols: number; rows: number; fitting: { cols: number; rows: number } | null };
  const screenSize = () => page.evaluate((id) => (window as unknown as { __ptydeck: { terminalSize(id: string): Sizes | null } }).__ptydeck.terminalSize(id), created.id);
  await expect
    .poll(async () => {
      const shown = await screenSize();
      const pty = (await server.session(created.id))!;
      return shown !== null && shown.rows > before.rows
        && shown.fitting?.rows === shown.rows && shown.fitting.cols === shown.cols
        && pty.rows === shown.rows && pty.cols === shown.cols;
    }, { message: 'the PTY takes the size of the taller terminal on screen' })
    .toBe(true);
  const after = (await server.session(created.id))!;
  expect(after.cols).toBe(before.cols);

  // What programs in the shell see is the size on screen.
  const run = await agent.call<{ output: string }>('terminal_run', { id: created.id, command: 'stty size' });
  expect(run.output.trim()).toBe(`${after.rows} ${after.cols}`);
});

test.describe('linger and pin', () => {
  test.use({ lingerMs: 500 });

  test('a pinned agent tab stays after its shell ends; unpinned, it lingers and goes', async ({ panel: page, agent }) => {
    const kept = await agent.call<{ id: string }>('terminal_create', { title: 'kept' });
    const gone = await agent.call<{ id: string }>('terminal_create', { title: 'gone' });
    const keptTab = page.getByRole('tab', { name: `${AGENT_NAME} agent: kept` });
    const goneTab = page.getByRole('tab', { name: `${AGENT_NAME} agent: gone` });
    await expect(page.getByRole('tab')).toHaveCount(2);

    const pin = page.locator('.tab', { has: keptTab }).getByTestId('tab-pin');
    await pin.click();
    await expect(pin).toHaveAttribute('aria-pressed', 'true');

    // Both shells exit; each tab shows its exit code.
    await agent.call('terminal_send', { id: kept.id, text: 'exit 7\r', wait_ms: 0 });
    await expect(keptTab).toHaveAttribute('data-status', 'exited');
    await expect(keptTab.getByTestId('tab-exit-code')).toHaveAttribute('data-exit-code', '7');
    await expect(keptTab.getByTestId('tab-exit-code')).toHaveText('exit 7');
    await agent.call('terminal_send', { id: gone.id, text: 'exit 0\r', wait_ms: 0 });

    // The unpinned tab's linger ends and it closes; by then the pinned one has outlived its own
    // (it exited first).
    await expect(goneTab).toHaveCount(0);
    await expect(keptTab).toBeVisible();
    await expect(panelRegion(page)).toBeVisible();

    // Unpinned, it gets a fresh linger and goes; the last tab closing closes the panel.
    await pin.click();
    await expect(keptTab).toHaveCount(0);
    await expect(panelRegion(page)).toBeHidden();
  });
});
