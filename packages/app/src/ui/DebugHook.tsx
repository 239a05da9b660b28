// A read-only window into the terminals for end-to-end tests, which cannot read WebGL-rendered text from the
// DOM.
import { onCleanup } from 'solid-js';
import { useTerminal } from '../terminal/terminal-context.jsx';

/**
 * `window.__ptydeck`: a small read-only window for end-to-end tests. With the
 * WebGL renderer a terminal's text is not in the DOM, so tests read it here.
 */
export interface PtydeckDebug {
  /** Text of a tab's terminal buffer (scrollback included), or null if it has no tab. */
  terminalText(id: string): string | null;
  /** A tab's terminal size, and the size that would fill its host now (null while hidden). */
  terminalSize(id: string): { cols: number; rows: number; fitting: { cols: number; rows: number } | null } | null;
  /** A tab's command marks (rows in its buffer, how each ended) and the top row shown; null if it has no tab. */
  commandMarks(id: string): { viewportY: number; marks: { id: string; line: number; state: string }[] } | null;
  /** The tabs as plain data. */
  tabs(): { id: string; title: string; source: string; status: string; exitCode: number | null }[];
  activeId(): string | null;
  panelOpen(): boolean;
  connection(): string;
}

export function DebugHook() {
  const terminal = useTerminal();
  const debug: PtydeckDebug = Object.freeze({
    terminalText: (id: string) => terminal.terminalText(id),
    terminalSize: (id: string) => {
      const view = terminal.viewFor(id);
      return view ? { ...view.size, fitting: view.fittingSize() } : null;
    },
    commandMarks: (id: string) => terminal.viewFor(id)?.commandMarks() ?? null,
    tabs: () => terminal.state.tabs.map(({ id, title, source, status, exitCode }) => ({ id, title, source, status, exitCode })),
    activeId: () => terminal.state.activeId,
    panelOpen: () => terminal.state.panelOpen,
    connection: () => terminal.connection().state,
  });
  Object.defineProperty(window, '__ptydeck', { value: debug, writable: false, enumerable: false, configurable: true });
  onCleanup(() => {
    delete (window as { __ptydeck?: unknown }).__ptydeck;
  });
  return null;
}
