// The chat pane against the core's scripted ACP agent (demo-agent.mjs, named
// "demo" in a temporary agents.json): start a chat, prompt, see thoughts, the
// plan and the answer stream in; a command's tool card with its permission
// question and live mini-terminal, whose session is also a tab in the panel
// with the agent's badge; a turn cancelled; an agent that dies; a broken
// agents.json explained.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { demoAgentsJson, expect, expectScreen, keepScreenshot, panelRegion, terminalOf, test } from './fixtures.js';
import { clickNotification, notifications, pretendFocus, recordNotifications } from './notification-recorder.js';

function chatPane(page: Page): Locator {
  return page.getByRole('complementary', { name: 'Chats with agents' });
}

/** Shows the chat pane (its open state is remembered per origin, so it may be open already). */
async function showChatPane(page: Page): Promise<Locator> {
  const toggle = page.getByTestId('toggle-chat');
  if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
  await expect(chatPane(page)).toBeVisible();
  return chatPane(page);
}

/** Opens the pane and starts a chat with the demo agent; returns the pane once the agent is ready. */
/** Starts a chat with the demo agent, in `cwd` when given (else the server's launch directory). */
async function startDemoChat(page: Page, cwd?: string): Promise<Locator> {
  const pane = await showChatPane(page);
  await expect(pane.getByTestId('chat-agent-select')).toHaveValue('demo');
  if (cwd !== undefined) await pane.getByTestId('chat-cwd').fill(cwd);
  await pane.getByRole('button', { name: 'Start' }).click();
  await expect(pane.getByRole('tab', { name: 'demo chat, ready', selected: true })).toBeVisible();
  return pane;
}

/** The text of the agent's latest message (without the name read out before it). */
function lastAgentMessage(log: Locator): Locator {
  return log.getByTestId('chat-message-agent').last().locator('.message-text');
}

async function send(pane: Locator, text: string): Promise<void> {
  const prompt = pane.getByRole('textbox', { name: 'Message demo' });
  await expect(prompt).toBeEnabled();
  await prompt.fill(text);
  await prompt.press('Enter');
}

test.describe('with the demo agent', () => {
  test.use({ agentsJson: demoAgentsJson() });

  test('a prompt streams a thought, the plan and the answer', async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    await send(pane, 'hello there');
    const log = pane.getByRole('log', { name: 'Chat with demo' });
    await expect(log.getByTestId('chat-message-user')).toHaveText(/hello there/);
    await expect(log.getByTestId('chat-thought')).toContainText('Thinking about: hello there');
    await expect(log.getByTestId('chat-message-agent')).toContainText('You said: hello there');
    const plan = pane.getByRole('region', { name: 'Plan' });
    await expect(plan.getByRole('listitem')).toHaveCount(2);
    // The last update replaced the first: both entries completed.
    await expect(plan.locator('[data-status="completed"]')).toHaveCount(2);
    await expect(pane.getByRole('tab', { name: 'demo chat, ready' })).toBeVisible();
    // The prompt box is empty again and takes the next prompt.
    await expect(pane.getByRole('textbox', { name: 'Message demo' })).toHaveValue('');

    // Markdown's code reads as code; what looks like HTML stays text.
    await send(pane, 'please `npm test` **now** <b>bold?</b>');
    const answer = log.getByTestId('chat-message-agent').last();
    await expect(answer).toContainText('You said: please npm test now <b>bold?</b>');
    await expect(answer.locator('code.message-inline-code')).toHaveText('npm test');
    await expect(answer.locator('strong')).toHaveText('now');
    await expect(answer.locator('b')).toHaveCount(0);
    await keepScreenshot(page, 'chat-markdown');
  });

  test('a command: permission dialog, a tool card with live output, its tab in the panel with the agent\'s badge', async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    await send(pane, 'run echo chat-says-$((6*7))');
    const log = pane.getByRole('log', { name: 'Chat with demo' });
    const card = log.getByRole('article', { name: /^Run echo chat-says/ });
    await expect(card).toHaveAttribute('data-kind', 'execute');

    // The agent asks; focus moves into the question, onto the safe option.
    const dialog = pane.getByRole('alertdialog');
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText('chat-says');
    await expect(dialog.getByRole('button', { name: 'Reject' })).toBeFocused();
    await expect(card.getByTestId('tool-asking')).toBeVisible();
    await keepScreenshot(page, 'chat-permission');
    await dialog.getByRole('button', { name: 'Allow' }).click();
    await expect(dialog).toBeHidden();
    await expect(card.getByTestId('tool-asking')).toHaveCount(0);

    // The card's terminal streams the command's output live.
    const terminal = card.getByTestId('tool-terminal');
    await expect(terminal.locator('.xterm-rows')).toContainText('chat-says-42');
    await expect(lastAgentMessage(log)).toHaveText(/Exit code 0/);
    await expect(card).toHaveAttribute('data-status', 'completed');

    // The same session is a tab in the panel, with the agent's badge; the card's header opens it.
    const sessionId = (await terminal.getAttribute('data-session-id'))!;
    const tab = panelRegion(page).locator(`[role="tab"][data-session-id="${sessionId}"]`);
    await expect(tab.getByTestId('tab-agent-badge')).toHaveText('demo');
    await terminal.getByRole('button', { name: /in the panel$/ }).click();
    await expect(tab).toHaveAttribute('aria-selected', 'true');
    await expectScreen(page, sessionId, /^chat-says-42$/m);
    // Closed, the tab comes back from the card with its screen; the card keeps streaming meanwhile.
    await panelRegion(page).getByRole('button', { name: `Close ${await tab.locator('.tab-title').textContent()}` }).click();
    await expect(tab).toHaveCount(0);
    await terminal.getByRole('button', { name: /in the panel$/ }).click();
    await expect(tab).toHaveAttribute('aria-selected', 'true');
    await expectScreen(page, sessionId, /^chat-says-42$/m);
    await expect(terminal.locator('.xterm-rows')).toContainText('chat-says-42');
    // The overview lists the session under its chat, not as a disconnected agent's.
    await expect(page.locator(`[data-testid="chat-agent"] [data-session-id="${sessionId}"]`)).toBeVisible();
    await expect(page.getByTestId('disconnected-agent')).toHaveCount(0);
    await keepScreenshot(page, 'chat-tool-card');
  });

  test('a rejected command is not run; Escape dismisses a question', async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    const log = pane.getByRole('log', { name: 'Chat with demo' });
    await send(pane, 'run echo never');
    await pane.getByRole('alertdialog').getByRole('button', { name: 'Reject' }).click();
    await expect(lastAgentMessage(log)).toHaveText('Not run.');
    await expect(log.getByRole('article', { name: /^Run echo never/ })).toHaveAttribute('data-status', 'failed');

    await send(pane, 'run echo dismissed');
    await expect(pane.getByRole('alertdialog')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(pane.getByRole('alertdialog')).toBeHidden();
    await expect(lastAgentMessage(log)).toHaveText('Not run.');
    await expect(log.getByRole('article', { name: /^Run echo dismissed/ })).toHaveAttribute('data-status', 'failed');
  });

  test('a turn is cancelled from the prompt box\'s Cancel button', async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    await send(pane, 'wait');
    await expect(pane.getByRole('tab', { name: 'demo chat, working' })).toBeVisible();
    await pane.getByRole('button', { name: 'Cancel' }).click();
    await expect(pane.getByTestId('chat-turn-end')).toHaveText('Turn cancelled.');
    await expect(pane.getByRole('tab', { name: 'demo chat, ready' })).toBeVisible();
  });

  test('closing a chat mid-turn asks first; Keep keeps it working', async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    await send(pane, 'wait');
    await expect(pane.getByRole('tab', { name: 'demo chat, working' })).toBeVisible();
    await pane.getByTestId('chat-close').click();
    const confirm = pane.getByRole('group', { name: 'Close this chat?' });
    await expect(confirm.getByRole('button', { name: 'Keep' })).toBeFocused();
    await confirm.getByRole('button', { name: 'Keep' }).click();
    await expect(confirm).toBeHidden();
    await expect(pane.getByRole('tab', { name: 'demo chat, working' })).toBeVisible();
    await pane.getByTestId('chat-close').click();
    await confirm.getByRole('button', { name: 'Stop and close' }).click();
    await expect(pane.getByRole('tab', { name: /^demo chat/ })).toHaveCount(0);
  });

  test('cancelling a turn answers its open question as cancelled and closes the dialog', async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    await send(pane, 'run echo not-now');
    await expect(pane.getByRole('alertdialog')).toBeVisible();
    await pane.getByRole('button', { name: 'Cancel' }).click();
    await expect(pane.getByRole('alertdialog')).toBeHidden();
    await expect(pane.getByTestId('chat-turn-end')).toHaveText('Turn cancelled.');
    await expect(pane.getByRole('log', { name: 'Chat with demo' }).getByRole('article', { name: /^Run echo not-now/ })).toHaveAttribute('data-status', 'failed');
  });

  test('a question answered in another window closes here; a reload brings the chat back', async ({ panel: page, server }) => {
    const pane = await startDemoChat(page);
    await send(pane, 'run echo from-elsewhere');
    await expect(pane.getByRole('alertdialog')).toBeVisible();

    const other = await page.context().newPage();
    await other.goto(await server.panelUrl());
    const otherPane = await showChatPane(other);
    await otherPane.getByRole('alertdialog').getByRole('button', { name: 'Allow' }).click();
    await expect(pane.getByRole('alertdialog')).toBeHidden();
    const log = pane.getByRole('log', { name: 'Chat with demo' });
    await expect(lastAgentMessage(log)).toHaveText(/Exit code 0/);
    await other.close();

    // The chat lives in the core: a reload gets its events again, tool card and terminal included.
    await page.reload();
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
    const again = chatPane(page);
    await expect(again.getByRole('tab', { name: 'demo chat, ready', selected: true })).toBeVisible();
    const card = again.getByRole('log', { name: 'Chat with demo' }).getByRole('article', { name: /^Run echo from-elsewhere/ });
    await expect(card).toHaveAttribute('data-status', 'completed');
    await expect(card.getByTestId('tool-terminal').locator('.xterm-rows')).toContainText('from-elsewhere');

    // A question still open at a reload is asked again, and its answer counts.
    await send(again, 'run echo after-reload');
    await expect(again.getByRole('alertdialog')).toBeVisible();
    await page.reload();
    const dialog = chatPane(page).getByRole('alertdialog');
    await expect(dialog).toContainText('after-reload');
    await dialog.getByRole('button', { name: 'Allow' }).click();
    const reloadedLog = chatPane(page).getByRole('log', { name: 'Chat with demo' });
    await expect(reloadedLog.getByRole('article', { name: /^Run echo after-reload/ })).toHaveAttribute('data-status', 'completed');
    await expect(reloadedLog.getByTestId('chat-message-agent').filter({ hasText: 'Exit code 0' })).toHaveCount(2);
  });

  test('a start the core refuses says why beside the form', async ({ panel: page }) => {
    const pane = await showChatPane(page);
    await pane.getByRole('textbox', { name: /Working directory/ }).fill('relative/dir');
    await pane.getByRole('button', { name: 'Start' }).click();
    const error = pane.getByTestId('chat-start-error');
    await expect(error).toContainText('Could not start demo.');
    await expect(error).toContainText('absolute');
    await error.getByRole('button', { name: 'Dismiss' }).click();
    await expect(error).toBeHidden();
  });

  test('a write shows its diff and asks first', async ({ panel: page }) => {
    const target = test.info().outputPath('note.txt');
    mkdirSync(dirname(target), { recursive: true });
    // The chat works in the file's directory: "Allow for this chat" covers writes inside it.
    const pane = await startDemoChat(page, dirname(target));
    writeFileSync(target, 'first line\nold line\n');
    await send(pane, `write ${target} first line\nnew line\n`);
    const log = pane.getByRole('log', { name: 'Chat with demo' });
    const card = log.getByRole('article', { name: /^Write / });
    const diff = card.getByTestId('tool-diff');
    await expect(diff.locator('del')).toHaveText(['old line']);
    await expect(diff.locator('ins')).toHaveText(['new line']);
    const dialog = pane.getByRole('alertdialog');
    await expect(dialog).toContainText(target);
    await dialog.getByRole('button', { name: 'Allow for this chat' }).click();
    await expect(lastAgentMessage(log)).toHaveText(`Wrote ${target}`);
    await expect(card).toHaveAttribute('data-status', 'completed');

    // Allowed for the chat: the next write inside its directory goes ahead without asking.
    await send(pane, `write ${target} second\n`);
    await expect(log.getByRole('article', { name: /^Write / })).toHaveCount(2);
    await expect(log.getByRole('article', { name: /^Write / }).last()).toHaveAttribute('data-status', 'completed');
    await expect(pane.getByRole('alertdialog')).toHaveCount(0);
    // One outside it is asked about, however it was allowed before.
    const outside = join(dirname(dirname(target)), `outside-${test.info().testId}.txt`);
    await send(pane, `write ${outside} third\n`);
    await expect(pane.getByRole('alertdialog')).toContainText(outside);
    await pane.getByRole('alertdialog').getByRole('button', { name: 'Reject' }).click();
    await expect(lastAgentMessage(log)).toContainText('the developer declined it');
  });

  test('the card and the tab show one running session live, and what the developer types in the tab', async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    await send(pane, 'run echo live-$((3*3)); read -r line; echo got-$line');
    await pane.getByRole('alertdialog').getByRole('button', { name: 'Allow' }).click();
    const card = pane.getByRole('log', { name: 'Chat with demo' }).getByRole('article', { name: /^Run echo live/ });
    const terminal = card.getByTestId('tool-terminal');
    // Output while the command still runs.
    await expect(terminal.locator('.xterm-rows')).toContainText('live-9');
    await expect(card).toHaveAttribute('data-status', 'in_progress');
    const sessionId = (await terminal.getAttribute('data-session-id'))!;
    await terminal.getByRole('button', { name: /in the panel$/ }).click();
    await expectScreen(page, sessionId, /^live-9$/m);
    await expect(terminalOf(page, sessionId).locator('textarea')).toBeFocused();
    await page.keyboard.type('typed-in-tab');
    await page.keyboard.press('Enter');
    await expect(terminal.locator('.xterm-rows')).toContainText('got-typed-in-tab');
    await expectScreen(page, sessionId, /^got-typed-in-tab$/m);
    await expect(card).toHaveAttribute('data-status', 'completed');
  });

  test('an agent\'s own command is a read-only tab tagged with the agent', async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    await send(pane, 'own echo owned-$((2*21))');
    const log = pane.getByRole('log', { name: 'Chat with demo' });
    await expect(lastAgentMessage(log)).toHaveText(/Exit code 0/);
    const tab = panelRegion(page).getByRole('tab', { name: /^demo agent: .*read-only/ });
    await expect(tab.getByTestId('tab-read-only')).toBeVisible();
    await expect(tab.getByTestId('tab-agent-badge')).toHaveText('demo');
    // The card streams the same output.
    const card = log.getByRole('article', { name: /^echo owned/ });
    await expect(card.getByTestId('tool-terminal').locator('.xterm-rows')).toContainText('owned-42');
  });

  test('two chats at once, and an agent that dies is reported in its chat', async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    // Typed and not sent: it waits in its chat while the developer is in another.
    await pane.getByRole('textbox', { name: 'Message demo' }).fill('half-typed');
    await pane.getByRole('tab', { name: '+ New chat' }).click();
    await pane.getByRole('button', { name: 'Start' }).click();
    // Two chats with one agent: the second is numbered so the tabs differ.
    await expect(pane.getByRole('tab', { name: /^demo( 2)? chat/ })).toHaveCount(2);
    await expect(pane.getByRole('tab', { name: 'demo 2 chat, ready', selected: true })).toBeVisible();
    await send(pane, 'die');
    await expect(pane.getByTestId('chat-ended')).toContainText('The agent has ended.');
    await expect(pane.getByTestId('chat-ended')).toContainText('7');
    await expect(pane.getByRole('tab', { name: 'demo 2 chat, ended', selected: true })).toBeVisible();
    await expect(pane.getByRole('textbox', { name: 'Message demo' })).toBeDisabled();
    // The other chat lives on.
    await pane.getByRole('tab', { name: 'demo chat, ready' }).click();
    await expect(pane.getByRole('textbox', { name: 'Message demo' })).toHaveValue('half-typed');
    await send(pane, 'still here');
    await expect(pane.getByRole('log', { name: 'Chat with demo' }).getByTestId('chat-message-agent')).toContainText('You said: still here');
    await keepScreenshot(page, 'chat-two-chats');
  });

  test('a question while the window is elsewhere is a desktop notification; clicking it brings its chat forward', async ({ panel: page, context }) => {
    await context.grantPermissions(['notifications']);
    await recordNotifications(page, 'granted');
    await page.reload();
    const pane = await startDemoChat(page);
    const dialog = pane.getByRole('alertdialog');

    // Looked at: the dialog is enough.
    await send(pane, 'run echo looked-at');
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await expect(pane.getByRole('log', { name: 'Chat with demo' }).getByTestId('chat-message-agent').last()).toContainText('Not run.');

    // Elsewhere: one notification naming the agent and what it asks.
    await pretendFocus(page, false);
    await send(pane, 'run echo from-afar');
    await expect.poll(() => notifications(page)).toHaveLength(1);
    const [shown] = await notifications(page);
    expect(shown).toMatchObject({ title: 'demo asks' });
    expect(shown!.body).toContain('from-afar');

    // Meanwhile the developer moved to another chat and hid the pane.
    await pane.getByRole('tab', { name: '+ New chat' }).click();
    await pane.getByRole('button', { name: 'Start' }).click();
    await expect(pane.getByRole('tab', { name: 'demo 2 chat, ready', selected: true })).toBeVisible();
    await page.getByTestId('toggle-chat').click();
    await expect(chatPane(page)).toBeHidden();

    // The click brings the pane back on the chat that asks, with its question open.
    await clickNotification(page, 0);
    await expect(chatPane(page)).toBeVisible();
    await expect(pane.getByRole('tab', { name: /^demo chat/, selected: true })).toBeVisible();
    await expect(dialog).toContainText('from-afar');
    await dialog.getByRole('button', { name: 'Allow' }).click();
    await expect(pane.getByRole('log', { name: 'Chat with demo' }).getByTestId('chat-message-agent').last()).toContainText('Exit code 0');
    expect(await notifications(page)).toHaveLength(1);
  });
});

test.describe('the overview with a chat', () => {
  test.use({ agentsJson: demoAgentsJson() });

  // Issue 32 item 9: a chat's agent reaches ptydeck's MCP server under its chat's owner id, so it was also a
  // "Connected agents" entry holding its shells, and its chat's card said it had no shells.
  test("lists the chat's agent once, on its chat's card, with the shells it opened through ptydeck's MCP server", async ({ panel: page }) => {
    const pane = await startDemoChat(page);
    const log = pane.getByRole('log', { name: 'Chat with demo' });
    await send(pane, 'mcp echo via-mcp');
    await expect(lastAgentMessage(log)).toHaveText(/^MCP terminal \S+: exit code 0$/);
    const sessionId = /^MCP terminal (\S+):/.exec((await lastAgentMessage(log).textContent())!)![1]!;
    const card = page.getByTestId('chat-agent');
    await expect(card.locator(`[data-session-id="${sessionId}"]`)).toBeVisible();
    await expect(card.getByText('No open shells.')).toHaveCount(0);
    // Its MCP connection stays open, as a real agent's does, and is not a second entry.
    await expect(page.getByTestId('agent')).toHaveCount(0);
    await expect(page.getByTestId('agent-count')).toHaveText('0');
  });
});

test.describe('a long transcript', () => {
  test.use({ agentsJson: demoAgentsJson() });

  // Issue 32 item 8: once the transcript outgrew the pane, every tool card shrank to 2 px (flex items with
  // overflow: hidden may shrink) and the plan took the pane.
  test('keeps every tool card its height, and the plan leaves the transcript room', async ({ panel: page }) => {
    await page.setViewportSize({ width: 1280, height: 640 });
    const pane = await startDemoChat(page);
    const log = pane.getByRole('log', { name: 'Chat with demo' });
    for (let n = 1; n <= 6; n++) {
      await send(pane, `own echo card-${n}`);
      await expect(log.getByRole('article', { name: new RegExp(`^echo card-${n}`) })).toHaveAttribute('data-status', 'completed');
      await expect(lastAgentMessage(log)).toHaveText('Exit code 0');
      // A plain prompt adds a plan and a thought, as a real agent's turn does.
      await send(pane, `note ${n}`);
      await expect(lastAgentMessage(log)).toHaveText(`You said: note ${n}`);
    }
    const transcript = await log.evaluate((element) => ({ scroll: element.scrollHeight, client: element.clientHeight }));
    expect(transcript.scroll).toBeGreaterThan(transcript.client);
    // Each card keeps at least its header and its output: none is squeezed to a sliver.
    const heights = await log.getByTestId('tool-card').evaluateAll((cards) => cards.map((card) => card.getBoundingClientRect().height));
    expect(heights).toHaveLength(6);
    for (const height of heights) expect(height).toBeGreaterThan(40);
    // The plan sits above the transcript, which keeps most of the pane.
    const plan = (await pane.getByRole('region', { name: 'Plan' }).boundingBox())!;
    const shown = (await log.boundingBox())!;
    expect(plan.y + plan.height).toBeLessThanOrEqual(shown.y + 1);
    expect(shown.height).toBeGreaterThan(200);
    await keepScreenshot(page, 'chat-long-transcript');
  });
});

test.describe('agents.json changing', () => {
  test.use({ agentsJson: demoAgentsJson() });

  // Issue 32 item 8: the pane read agents.json once per connection; a changed file needed "Look again".
  test('the pane lists the agents of agents.json as it is now, without Look again', async ({ panel: page, server }) => {
    const pane = await showChatPane(page);
    const select = pane.getByTestId('chat-agent-select');
    await expect(select.locator('option')).toHaveText(['demo']);
    const [demo] = (JSON.parse(demoAgentsJson()) as { agents: object[] }).agents;
    writeFileSync(join(server.configDir, 'agents.json'), JSON.stringify({ agents: [demo, { ...demo, name: 'second' }] }));
    await expect(select.locator('option')).toHaveText(['demo', 'second']);
    // Hidden and shown again: read afresh on opening.
    await pane.getByTestId('chat-pane-hide').click();
    writeFileSync(join(server.configDir, 'agents.json'), JSON.stringify({ agents: [{ ...demo, name: 'third' }] }));
    await page.getByTestId('toggle-chat').click();
    await expect(select.locator('option')).toHaveText(['third']);
  });
});

test.describe('with a broken agents.json', () => {
  test.use({ agentsJson: '{"agents": [ this is not json' });

  test('the pane says what is wrong and where the file is, and nothing crashes', async ({ panel: page }) => {
    await page.getByTestId('toggle-chat').click();
    const error = chatPane(page).getByTestId('agents-config-error');
    await expect(error).toBeVisible();
    await expect(error).toHaveAttribute('role', 'alert');
    await expect(error).toContainText('agents.json could not be used');
    await expect(error).toContainText('agents.json');
    await expect(chatPane(page).getByTestId('agents-example')).toContainText('"agents"');
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
    await keepScreenshot(page, 'chat-broken-agents-json');
  });
});

test.describe('without an agents.json', () => {
  test('the pane says where to create one, with an example', async ({ panel: page }) => {
    await page.getByTestId('toggle-chat').click();
    await expect(chatPane(page).getByTestId('agents-empty')).toContainText('agents.json');
    await expect(chatPane(page).getByTestId('agents-example')).toContainText('"agents"');
  });
});
