// A terminal's context menu: Copy, Paste and Select all, as a terminal's right click offers them.
import { onCleanup, onMount } from 'solid-js';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { useReplay } from '../replay/replay-context.jsx';

/** Keeps the menu inside the window: it opens at the pointer, up and left of it near an edge. */
const MENU_WIDTH = 180;
const MENU_HEIGHT = 140;

/**
 * The menu of the terminal of session `id`, opened at the pointer. An item
 * acts on the terminal and hands the keyboard back to it; Escape, a click
 * elsewhere or the window losing focus closes it the same way.
 */
export function TerminalContextMenu(props: { id: string; x: number; y: number; onClose(): void }) {
  const terminal = useTerminal();
  const replay = useReplay();
  // Read once: closing unmounts the menu, after which its props are stale.
  const id = props.id;
  const onClose = props.onClose;
  const view = () => terminal.viewFor(id);
  // Read once, as the menu opens: what it offers is what was true at the right click.
  const canCopy = view()?.hasSelection() ?? false;
  const canPaste = view()?.takesInput ?? false;
  let menu!: HTMLDivElement;

  function close(): void {
    onClose();
    view()?.focus();
  }

  function act(action: (target: NonNullable<ReturnType<typeof view>>) => void): void {
    const target = view();
    if (target) action(target);
    close();
  }

  onMount(() => {
    const onPointerDown = (event: PointerEvent) => {
      if (!menu.contains(event.target as Node)) onClose();
    };
    const dismiss = () => onClose();
    window.addEventListener('pointerdown', onPointerDown, true);
    window.addEventListener('blur', dismiss);
    window.addEventListener('resize', dismiss);
    onCleanup(() => {
      window.removeEventListener('pointerdown', onPointerDown, true);
      window.removeEventListener('blur', dismiss);
      window.removeEventListener('resize', dismiss);
    });
    menu.querySelector<HTMLButtonElement>('button:not(:disabled)')?.focus();
  });

  // Up and down move through the items, as in any menu.
  function onKeyDown(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      close();
      return;
    }
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const items = Array.from(menu.querySelectorAll<HTMLButtonElement>('button:not(:disabled)'));
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const step = event.key === 'ArrowDown' ? 1 : -1;
    items[(at + step + items.length) % items.length]?.focus();
  }

  return (
    <div
      ref={menu}
      class="context-menu"
      role="menu"
      aria-label="Terminal"
      data-testid="terminal-context-menu"
      style={{
        left: `${Math.max(0, Math.min(props.x, window.innerWidth - MENU_WIDTH))}px`,
        top: `${Math.max(0, Math.min(props.y, window.innerHeight - MENU_HEIGHT))}px`,
      }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      <button type="button" role="menuitem" class="context-menu-item" disabled={!canCopy} onClick={() => act((target) => target.copySelection())}>
        <span>Copy</span><kbd>{terminal.clipboardKeys.copy}</kbd>
      </button>
      <button type="button" role="menuitem" class="context-menu-item" disabled={!canPaste} onClick={() => act((target) => target.pasteFromClipboard())}>
        <span>Paste</span><kbd>{terminal.clipboardKeys.paste}</kbd>
      </button>
      <button type="button" role="menuitem" class="context-menu-item" onClick={() => act((target) => target.selectAll())}>
        <span>Select all</span>
      </button>
      <button type="button" role="menuitem" class="context-menu-item" onClick={() => { onClose(); replay.open(id); }}>
        <span>Replay</span>
      </button>
    </div>
  );
}
