/** What a resize edge (the panel's top, the chat pane's left) does with a pointer and with the keyboard. */

/**
 * Follows a drag that starts on a handle (a resize edge): the pointer is
 * captured so the drag keeps going outside the handle, `onMove` gets every
 * move, `onEnd` the release (or a cancel), and every listener goes with it.
 * Only the primary button starts one.
 */
export function followDrag(event: PointerEvent, onMove: (move: PointerEvent) => void, onEnd: () => void): void {
  if (event.button !== 0) return;
  event.preventDefault();
  const handle = event.currentTarget as HTMLElement;
  handle.setPointerCapture(event.pointerId);
  const end = () => {
    handle.removeEventListener('pointermove', onMove);
    handle.removeEventListener('pointerup', end);
    handle.removeEventListener('pointercancel', end);
    onEnd();
  };
  handle.addEventListener('pointermove', onMove);
  handle.addEventListener('pointerup', end);
  handle.addEventListener('pointercancel', end);
}

/**
 * The keyboard's way to move a resize edge: how far one arrow press moves it
 * (Shift for a bigger step), signed toward `grow`; null for any other key,
 * which the handle leaves alone.
 */
export function arrowResizeStep(event: KeyboardEvent, grow: string, shrink: string): number | null {
  if (event.key !== grow && event.key !== shrink) return null;
  event.preventDefault();
  const step = event.shiftKey ? 96 : 24;
  return event.key === grow ? step : -step;
}
