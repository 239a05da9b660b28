/** Panel-level commands bound to keys. */
export type ShortcutCommand = 'toggle-panel' | 'new-terminal' | 'next-tab' | 'previous-tab' | 'close-tab' | 'find';

/** Where the page runs: a browser window keeps some keys for itself (its tabs, its window). */
export type ShortcutMode = 'electron' | 'browser';

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
 * printed character varies by layout (the backquote key, letters with Alt),
 * on `key` otherwise. These must be checked before xterm.js sees the event,
 * or the shell gets them.
 *
 * Every binding works in both modes; the labels advertise the ones that reach
 * the page where it runs. A normal Chromium window never passes Ctrl+PageDown,
 * Ctrl+PageUp (its own tabs), Ctrl+Shift+W (closes the window) or, once a tab
 * was closed, Ctrl+Shift+T (reopens it) to a page; Ctrl+Shift+`, Ctrl+Shift+
 * PageDown/PageUp and Alt+Shift+W do reach it (checked in a windowed Chromium
 * with real X key events, scripts/probe-browser-keys.mjs).
 */
export function matchShortcut(event: KeyLike): ShortcutCommand | null {
  if (event.metaKey) return null;
  if (event.altKey) {
    // Alt+Shift+W: close a tab where Ctrl+Shift+W would close the browser window.
    return !event.ctrlKey && event.shiftKey && event.code === 'KeyW' ? 'close-tab' : null;
  }
  if (!event.ctrlKey) return null;
  const backquote = event.code === 'Backquote' || event.key === '`' || event.key === '~';
  if (backquote) return event.shiftKey ? 'new-terminal' : 'toggle-panel';
  // With or without Shift: Ctrl+PageDown in Electron, Ctrl+Shift+PageDown in a browser.
  if (event.key === 'PageDown') return 'next-tab';
  if (event.key === 'PageUp') return 'previous-tab';
  if (event.shiftKey && (event.code === 'KeyT' || event.key.toLowerCase() === 't')) return 'new-terminal';
  if (event.shiftKey && (event.code === 'KeyW' || event.key.toLowerCase() === 'w')) return 'close-tab';
  if (event.shiftKey && (event.code === 'KeyF' || event.key.toLowerCase() === 'f')) return 'find';
  return null;
}

/** Human-readable bindings for tooltips and the overview: the ones that work in `mode`. */
export function shortcutLabels(mode: ShortcutMode): Record<ShortcutCommand, string> {
  return mode === 'electron' ? ELECTRON_LABELS : BROWSER_LABELS;
}

const ELECTRON_LABELS: Record<ShortcutCommand, string> = {
  'toggle-panel': 'Ctrl+`',
  'new-terminal': 'Ctrl+Shift+T',
  'next-tab': 'Ctrl+PageDown',
  'previous-tab': 'Ctrl+PageUp',
  'close-tab': 'Ctrl+Shift+W',
  find: 'Ctrl+Shift+F',
};

const BROWSER_LABELS: Record<ShortcutCommand, string> = {
  'toggle-panel': 'Ctrl+`',
  'new-terminal': 'Ctrl+Shift+`',
  'next-tab': 'Ctrl+Shift+PageDown',
  'previous-tab': 'Ctrl+Shift+PageUp',
  'close-tab': 'Alt+Shift+W',
  find: 'Ctrl+Shift+F',
};
