/** Panel-level commands bound to keys. */
export type ShortcutCommand = 'toggle-panel' | 'new-terminal' | 'next-tab' | 'previous-tab' | 'close-tab' | 'find';

/** The fields of a KeyboardEvent the matcher reads, so it is testable without a DOM. */
export interface KeyLike {
  key: string;
  code: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

/**
 * Maps a key press to a panel command, or null. Matches on `code` where the
 * printed character varies by layout (the backquote key), on `key` otherwise.
 * These must be checked before xterm.js sees the event, or the shell gets them.
 */
export function matchShortcut(event: KeyLike): ShortcutCommand | null {
  if (!event.ctrlKey || event.altKey || event.metaKey) return null;
  const backquote = event.code === 'Backquote' || event.key === '`' || event.key === '~';
  if (backquote) return event.shiftKey ? 'new-terminal' : 'toggle-panel';
  if (event.key === 'PageDown' && !event.shiftKey) return 'next-tab';
  if (event.key === 'PageUp' && !event.shiftKey) return 'previous-tab';
  if (event.shiftKey && (event.code === 'KeyT' || event.key.toLowerCase() === 't')) return 'new-terminal';
  if (event.shiftKey && (event.code === 'KeyW' || event.key.toLowerCase() === 'w')) return 'close-tab';
  if (event.shiftKey && (event.code === 'KeyF' || event.key.toLowerCase() === 'f')) return 'find';
  return null;
}

/** Human-readable bindings for tooltips and the overview. */
export const SHORTCUT_LABELS: Record<ShortcutCommand, string> = {
  'toggle-panel': 'Ctrl+`',
  'new-terminal': 'Ctrl+Shift+T',
  'next-tab': 'Ctrl+PageDown',
  'previous-tab': 'Ctrl+PageUp',
  'close-tab': 'Ctrl+Shift+W',
  find: 'Ctrl+Shift+F',
};
