// Issue 36.4, end to end: a command's menu sends the command and its output to the chat in front, as context
// in the developer's unsent prompt (capped: head and tail around an omission line). Nothing reaches the agent
// until the developer sends; then the demo agent gets exactly that text. Without a chat the item is not offered.
import type { Locator, Page } from '@playwright/test';
import { demoAgentsJson, expect, openUserTerminal, terminalOf, test } from './fixtures.js';

interface Marks { viewportY: number; marks: { id: string; line: number; state: string }[] }

const marksOf = (page: Page, id: string) =>
  page.evaluate((sessionId) => (window as unknown as { __ptydeck: { commandMarks(id: string): Marks | null } }).__ptydeck.commandMarks(sessionId), id) as Promise<Marks>;
const statesOf = async (page: Page, id: string) => (await marksOf(page, id)).marks.map((mark) => mark.state);

async function run(page: Page, command: string): Promise<void> {
  await page.keyboard.type(command);
  await page.keyboard.press('Enter');
}

/** Ctrl+Up to a command's line (its mark is drawn only while its row shows), then a click on its mark. */
async function openMenu(page: Page, id: string, commandId: string): Promise<Locator> {
  const { marks } = await marksOf(page, id);
  const line = marks.find((mark) => mark.id === commandId)!.line;
  await terminalOf(page, id).locator('textarea').focus();
  await page.keyboard.press('Control+End');
  for (let i = marks.length - 1; i >= 0 && marks[i]!.line >= line; i--) await page.keyboard.press('Control+ArrowUp');
  await terminalOf(page, id).locator(`.command-mark[data-command-id="${commandId}"]`).click();
  const menu = page.getByTestId('command-menu');
  await expect(menu).toBeVisible();
  return menu;
}

/** The text "Send to chat" adds for a command that exited 0 in `cwd`, its output capped at 8000 characters. */
function context(cwd: string, command: string, output: string): string {
  const max = 8000;
  const shown = output.length <= max
    ? output
    : `${output.slice(0, max / 2)}\n... ${output.length - max} characters omitted ...\n${output.slice(output.length - max / 2)}`;
  return `Terminal command in ${cwd} (exit 0):\n\`\`\`\n$ ${command}\n${shown}\n\`\`\``;
}

const seq = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i)).join('\n');

test.use({ agentsJson: demoAgentsJson() });

test('Send to chat puts a command and its output in the prompt, capped; the agent gets it only when the developer sends', async ({ panel: page }) => {
  const id = await openUserTerminal(page);
  await run(page, 'cd /tmp');
  await expect.poll(() => statesOf(page, id)).toEqual(['success']);
  await run(page, 'seq 1 5');
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'success']);
  // Output over the cap: 3000 lines, 13 892 characters.
  await run(page, 'seq 1 3000');
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'success', 'success']);
  const [, small, large] = (await marksOf(page, id)).marks;

  // No chat: the menu does not offer one.
  let menu = await openMenu(page, id, small!.id);
  await expect(menu.getByRole('menuitem')).toHaveText(['Copy output', 'Copy command', 'Rerun']);
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();

  // A chat with the demo agent.
  await page.getByTestId('toggle-chat').click();
  const pane = page.getByRole('complementary', { name: 'Chats with agents' });
  await expect(pane.getByTestId('chat-agent-select')).toHaveValue('demo');
  await pane.getByRole('button', { name: 'Start' }).click();
  await expect(pane.getByRole('tab', { name: 'demo chat, ready', selected: true })).toBeVisible();
  const prompt = pane.getByRole('textbox', { name: 'Message demo' });
  const log = pane.getByRole('log', { name: 'Chat with demo' });

  // The developer starts a message, then adds the small command to it: after a blank line, the keyboard in the prompt.
  await prompt.fill('Why is this?');
  menu = await openMenu(page, id, small!.id);
  await expect(menu.getByRole('menuitem')).toHaveText(['Copy output', 'Copy command', 'Rerun', 'Send to chat']);
  await menu.getByRole('menuitem', { name: 'Send to chat' }).click();
  await expect(menu).toBeHidden();
  const first = context('/tmp', 'seq 1 5', seq(1, 5));
  await expect(prompt).toHaveValue(`Why is this?\n\n${first}`);
  await expect(prompt).toBeFocused();

  // The large one, with the chat pane closed: it opens on the chat, the keyboard in the prompt, the context
  // (its head and tail around an omission line) added after the first.
  await page.getByTestId('toggle-chat').click();
  await expect(pane).toBeHidden();
  menu = await openMenu(page, id, large!.id);
  await menu.getByRole('menuitem', { name: 'Send to chat' }).click();
  await expect(pane).toBeVisible();
  const second = context('/tmp', 'seq 1 3000', seq(1, 3000));
  expect(second).toContain('\n... 5892 characters omitted ...\n');
  const draft = `Why is this?\n\n${first}\n\n${second}`;
  await expect(prompt).toHaveValue(draft);
  await expect(prompt).toBeFocused();
  // Not sent: the chat is idle and has no message.
  await expect(pane.getByRole('tab', { name: 'demo chat, ready', selected: true })).toBeVisible();
  await expect(log.getByTestId('chat-message-user')).toHaveCount(0);

  // Sent by the developer: the demo agent echoes what it received, and it was the one prompt of the chat.
  await pane.getByTestId('chat-send').click();
  const answer = log.getByTestId('chat-message-agent');
  await expect(answer).toHaveCount(1);
  await expect(answer.locator('pre')).toHaveText([`$ seq 1 5\n${seq(1, 5)}`, second.split('\n').slice(2, -1).join('\n')]);
  await expect(answer).toContainText('You said: Why is this?');
  await expect(pane.getByRole('tab', { name: 'demo chat, ready', selected: true })).toBeVisible();
  await expect(log.getByTestId('chat-message-user')).toHaveCount(1);
  await expect(prompt).toHaveValue('');

  // A second chat, in front and ended, does not hide the first, still open: that one takes the context.
  await pane.getByRole('tab', { name: '+ New chat' }).click();
  await pane.getByRole('button', { name: 'Start' }).click();
  await expect(pane.getByRole('tab', { name: 'demo 2 chat, ready', selected: true })).toBeVisible();
  await prompt.fill('die');
  await prompt.press('Enter');
  await expect(pane.getByRole('tab', { name: 'demo 2 chat, ended', selected: true })).toBeVisible();
  menu = await openMenu(page, id, small!.id);
  await expect(menu.getByRole('menuitem')).toHaveText(['Copy output', 'Copy command', 'Rerun', 'Send to chat']);
  await menu.getByRole('menuitem', { name: 'Send to chat' }).click();
  await expect(pane.getByRole('tab', { name: 'demo chat, ready', selected: true })).toBeVisible();
  await expect(prompt).toHaveValue(first);
  await expect(prompt).toBeFocused();

  // With every chat ended, the menu offers none.
  await prompt.fill('die');
  await prompt.press('Enter');
  await expect(pane.getByRole('tab', { name: 'demo chat, ended', selected: true })).toBeVisible();
  menu = await openMenu(page, id, small!.id);
  await expect(menu.getByRole('menuitem')).toHaveText(['Copy output', 'Copy command', 'Rerun']);
});
