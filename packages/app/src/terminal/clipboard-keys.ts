import type { KeyLike } from './shortcuts.js';

/**
 * What a key does with the clipboard in a terminal: `copy` the selection (and
 * keep it), `copy-and-clear` (Ctrl+C with a selection: cleared, so the next
 * Ctrl+C interrupts again), `paste`, or null when the key is the shell's.
 */
export type ClipboardKey = 'copy' | 'copy-and-clear' | 'paste';

/**
 * The keys users of VS Code's terminal, Windows Terminal and GNOME Terminal
 * expect: Ctrl+Shift+C / Ctrl+Shift+V everywhere, Cmd+C / Cmd+V on macOS, and
 * Ctrl+C / Ctrl+V off macOS (Ctrl+C copies only while text is selected;
 * otherwise it is the shell's interrupt). On macOS Ctrl+C and Ctrl+V stay the
 * shell's, as in Terminal.app. Letters match by `code` or by `key`, as the
 * panel shortcuts do, so other layouts work.
 */
export function matchClipboardKey(event: KeyLike, options: { mac: boolean; hasSelection: boolean }): ClipboardKey | null {
  if (event.altKey) return null;
  const letter = event.code === 'KeyC' || event.key.toLowerCase() === 'c' ? 'c' : event.code === 'KeyV' || event.key.toLowerCase() === 'v' ? 'v' : null;
  if (letter === null) return null;
  if (event.metaKey) {
    if (!options.mac || event.ctrlKey || event.shiftKey) return null;
    return letter === 'v' ? 'paste' : options.hasSelection ? 'copy' : null;
  }
  if (!event.ctrlKey) return null;
  // Ctrl+Shift+C copies nothing without a selection, but is still taken: a browser would open its inspector.
  if (event.shiftKey) return letter === 'v' ? 'paste' : 'copy';
  if (options.mac) return null;
  if (letter === 'v') return 'paste';
  return options.hasSelection ? 'copy-and-clear' : null;
}

/** macOS copies and pastes with Cmd, and keeps Ctrl+C and Ctrl+V for the shell. */
export const MAC_PLATFORM = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** The copy and paste keys as the context menu shows them. */
export function clipboardKeyLabels(mac: boolean): { copy: string; paste: string } {
  return mac ? { copy: 'Cmd+C', paste: 'Cmd+V' } : { copy: 'Ctrl+Shift+C', paste: 'Ctrl+Shift+V' };
}
