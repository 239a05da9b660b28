// A dropped panel socket: the panel says so, reconnects on its own and resumes
// each terminal from its cursor, so output from while it was away shows once.
import type { WebSocketRoute } from '@playwright/test';
import { expect, expectScreen, screenText, test } from './fixtures.js';

test('a dropped panel socket reconnects and resumes without losing or repeating output', async ({ page, server, agent }) => {
  const routes: WebSocketRoute[] = [];
  // Every panel socket goes through Playwright, so the test can cut one from the page's side.
  await page.routeWebSocket(/\/panel$/, (ws) => {
    routes.push(ws);
    ws.connectToServer();
  });
  await page.goto(await server.panelUrl());
  const status = page.getByTestId('connection-status');
  await expect(status).toHaveAttribute('data-state', 'connected');

  const created = await agent.call<{ id: string }>('terminal_create', { title: 'steady' });
  await agent.call('terminal_run', { id: created.id, command: 'echo before-drop-$((1+2))' });
  await expectScreen(page, created.id, /^before-drop-3$/m);

  const first = routes.length;
  await routes[first - 1]!.close({ code: 1001, reason: 'test drops the socket' });
  await expect(status).toHaveAttribute('data-state', /disconnected|connecting/);
  // Output produced while the panel is away (or just reconnecting).
  await agent.call('terminal_run', { id: created.id, command: 'echo while-away-$((2+2))' });

  await expect(status).toHaveAttribute('data-state', 'connected', { timeout: 15_000 });
  expect(routes.length).toBeGreaterThan(first);
  await expectScreen(page, created.id, /^while-away-4$/m);
  const screen = await screenText(page, created.id);
  expect(screen.match(/^before-drop-3$/gm)).toHaveLength(1);
  expect(screen.match(/^while-away-4$/gm)).toHaveLength(1);
  await expect(page.getByRole('tab')).toHaveCount(1);
});
