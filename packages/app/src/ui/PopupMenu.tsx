// A small menu at a point of the window (the terminal's context menu, a command's menu): arrow keys move through
// its items, Escape, a click elsewhere or the window losing focus close it.
import { onCleanup, onMount, type JSX } from 'solid-js';

/**
 * A menu opened at a point, kept inside the window (up and left of the point
 * near an edge). The first item takes the keyboard; `onClose(true)` means the
 * developer dismissed it (Escape), `onClose(false)` that it lost the pointer
 * or the window.
 */
export function PopupMenu(props: {
  label: string;
  testId: string;
  x: number;
  y: number;
  /** Room the menu needs, to keep it inside the window. */
  width: number;
  height: number;
  onClose(dismissed: boolean): void;
  children: JSX.Element;
}) {
  // Read once: closing unmounts the menu, after which its props are stale.
  const onClose = props.onClose;
  let menu!: HTMLDivElement;

  onMount(() => {
    const onPointerDown = (event: PointerEvent) => {
      if (!menu.contains(event.target as Node)) onClose(false);
    };
    const dismiss = () => onClose(false);
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
      onClose(true);
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
      aria-label={props.label}
      data-testid={props.testId}
      style={{
        left: `${Math.max(0, Math.min(props.x, window.innerWidth - props.width))}px`,
        top: `${Math.max(0, Math.min(props.y, window.innerHeight - props.height))}px`,
      }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      {props.children}
    </div>
  );
}
