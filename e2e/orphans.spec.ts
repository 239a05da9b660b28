// When an agent's MCP connection ends its shells stay for the developer: the
// overview shows that agent as disconnected with its shells under it, and one
// button ends the ones still running (the same close a tab's close sends).
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectAgent, expect, keepScreenshot, test } from './fixtures.js';

test("a disconnected agent's shells are grouped under it, and one action closes them all", async ({ panel: page, server, agent: stays }) => {
  const leaving = await connectAgent(server, 'codex');
  const shells = [];
  for (const title of ['build', 'tests']) shells.push(await leaving.call<{ id: string }>('terminal_create', { title }));
  const done = await leaving.call<{ id: string }>('terminal_create', { title: 'done' });
  await leaving.call('terminal_send', { id: done.id, text: 'exit 3\r', wait_ms: 0 });
  const kept = await stays.call<{ id: string }>('terminal_create', { title: 'unrelated' });
  await expect(page.getByTestId('agent')).toHaveCount(2);

  // The agent leaves as a client does when it shuts down: it ends its MCP session.
  await (leaving.client.transport as StreamableHTTPClientTransport).terminateSession();
  await leaving.client.close();

  const card = page.getByTestId('disconnected-agent');
  await expect(card).toHaveCount(1);
  await expect(page.getByTestId('agent')).toHaveCount(1);
  await expect(card).toContainText('codex');
  await expect(card.getByTestId('disconnected-agent-status')).toHaveText('disconnected · 2 shells still running');
  const rows = card.getByTestId('overview-session');
  await expect(rows).toHaveCount(3);
  await expect(card.locator('[data-testid="overview-session"][data-status="running"]')).toHaveCount(2);
  for (const shell of shells) await expect(page.locator(`[role="tab"][data-session-id="${shell.id}"]`)).toBeVisible();
  await keepScreenshot(page, 'disconnected-agent');

  await card.getByTestId('close-agent-sessions').click();
  await expect(card.locator('[data-testid="overview-session"][data-status="running"]')).toHaveCount(0);
  await expect(card.getByTestId('disconnected-agent-status')).toHaveText('disconnected · no shell still running');
  await expect(card.getByTestId('close-agent-sessions')).toHaveCount(0);
  for (const shell of shells) {
    await expect(card.locator(`[data-testid="overview-session"][data-session-id="${shell.id}"]`)).toHaveAttribute('data-status', 'exited');
    await expect(page.locator(`[role="tab"][data-session-id="${shell.id}"]`)).toHaveCount(0);
  }
  // Closed as asked, not failed; the connected agent's shell is untouched.
  await expect(card.locator(`[data-session-id="${shells[0]!.id}"]`).getByTestId('overview-session-status')).toHaveText('closed');
  await expect(page.locator(`[role="tab"][data-session-id="${kept.id}"]`)).toHaveAttribute('data-status', 'running');
});
