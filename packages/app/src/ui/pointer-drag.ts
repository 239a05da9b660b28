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
