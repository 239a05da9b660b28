// A terminal's context menu: Copy, Paste and Select all, as a terminal's right click offers them, and the
// session's recording.
import { useTerminal } from '../terminal/terminal-context.jsx';
import { useTimeline } from '../timeline/timeline-context.jsx';
import { PopupMenu } from './PopupMenu.jsx';
import { useReplay } from '../replay/replay-context.jsx';

/**
 * The menu of the terminal of session `id`, opened at the pointer. An item
 * acts on the terminal and hands the keyboard back to it; Escape, a click
 * elsewhere or the window losing focus closes it the same way.
 */
export function TerminalContextMenu(props: { id: string; x: number; y: number; onClose(): void }) {
  const terminal = useTerminal();
  const timeline = useTimeline();
  const replay = useReplay();
  // Read once: closing unmounts the menu, after which its props are stale.
  const id = props.id;
  const onClose = props.onClose;
  const view = () => terminal.viewFor(id);
  // Read once, as the menu opens: what it offers is what was true at the right click.
  const canCopy = view()?.hasSelection() ?? false;
  const canPaste = view()?.takesInput ?? false;
  const gone = terminal.state.tabs.find((tab) => tab.id === id)?.gone ?? true;

  function close(): void {
    onClose();
    view()?.focus();
  }

  function act(action: (target: NonNullable<ReturnType<typeof view>>) => void): void {
    const target = view();
    if (target) action(target);
    close();
  }

  return (
    <PopupMenu label="Terminal" testId="terminal-context-menu" x={props.x} y={props.y} width={200} height={200} onClose={(dismissed) => (dismissed ? close() : onClose())}>
      <button type="button" role="menuitem" class="context-menu-item" disabled={!canCopy} onClick={() => act((target) => target.copySelection())}>
        <span>Copy</span><kbd>{terminal.clipboardKeys.copy}</kbd>
      </button>
      <button type="button" role="menuitem" class="context-menu-item" disabled={!canPaste} onClick={() => act((target) => target.pasteFromClipboard())}>
        <span>Paste</span><kbd>{terminal.clipboardKeys.paste}</kbd>
      </button>
      <button type="button" role="menuitem" class="context-menu-item" onClick={() => act((target) => target.selectAll())}>
        <span>Select all</span>
      </button>
      <button type="button" role="menuitem" class="context-menu-item" disabled={gone} title="Download this session's recording (asciicast v3)"
        onClick={() => act(() => timeline.exportSession(id, 'asciicast-v3') || terminal.notice('Not connected to ptydeck: cannot export the recording.'))}>
        <span>Export recording</span>
      </button>
      <button type="button" role="menuitem" class="context-menu-item" onClick={() => { onClose(); replay.open(id); }}>
        <span>Replay</span>
      </button>
    </PopupMenu>
  );
}
