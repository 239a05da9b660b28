// A command's menu, from its gutter mark: copy its output or its line, run it again in the developer's own tab,
// send it to a chat as context.
import { Show } from 'solid-js';
import { useChat } from '../chat/chat-context.jsx';
import { commandContext } from '../chat/command-context.js';
import type { Chat } from '../chat/chat-state.js';
import type { CommandMenuAt } from '../terminal/terminal-context.jsx';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { PopupMenu } from './PopupMenu.jsx';

/**
 * The menu of one command of a tab's terminal. What it offers is read as it
 * opens: Rerun only in the developer's own tab (never an agent's, whose shell
 * is the agent's to drive), Send to chat only when a chat can take it.
 */
export function CommandMenu(props: { at: CommandMenuAt }) {
  const terminal = useTerminal();
  const chat = useChat();
  const { id, commandId } = props.at;
  const view = terminal.viewFor(id);
  const record = view?.commandRecord(commandId);
  const output = view?.commandOutput(commandId) ?? null;
  const canRerun = record?.command != null && terminal.canRerun(id);
  // The chat in front, or else one still open (an ended chat in front must not hide the others).
  const open = (candidate: Chat | undefined) => (candidate && candidate.info.state !== 'ended' ? candidate : undefined);
  const chatTarget = open(chat.activeChat()) ?? chat.state.chats.find((candidate) => open(candidate));

  function close(): void {
    terminal.closeCommandMenu();
    view?.focus();
  }

  function copy(text: string): void {
    terminal.clipboard.writeText(text).catch((error: unknown) => terminal.notice(`Could not copy: the clipboard was not available (${error instanceof Error ? error.message : String(error)}).`));
    close();
  }

  function sendToChat(): void {
    if (!record || output === null || !chatTarget) return;
    terminal.closeCommandMenu();
    chat.addToDraft(chatTarget.info.id, commandContext(record, output));
  }

  return (
    <PopupMenu label={`Command ${record?.command ?? ''}`.trim()} testId="command-menu" x={props.at.x} y={props.at.y} width={200} height={140}
      onClose={(dismissed) => (dismissed ? close() : terminal.closeCommandMenu())}>
      <button type="button" role="menuitem" class="context-menu-item" disabled={output === null} onClick={() => copy(output ?? '')}>
        <span>Copy output</span>
      </button>
      <button type="button" role="menuitem" class="context-menu-item" disabled={record?.command == null} onClick={() => copy(record?.command ?? '')}>
        <span>Copy command</span>
      </button>
      <Show when={canRerun}>
        <button type="button" role="menuitem" class="context-menu-item" onClick={() => {
          terminal.closeCommandMenu();
          terminal.rerun(id, record!.command!);
        }}>
          <span>Rerun</span>
        </button>
      </Show>
      <Show when={chatTarget}>
        {(to) => (
          <button type="button" role="menuitem" class="context-menu-item" disabled={!record || output === null} title={`Add the command and its output to your message to ${to().info.agentName}`} onClick={sendToChat}>
            <span>Send to chat</span>
          </button>
        )}
      </Show>
    </PopupMenu>
  );
}
