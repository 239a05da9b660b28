/**
 * The xterm.js view of each tab, kept in step with the deck: made when a tab
 * appears (with its share of its session's stream, unless the session is
 * gone), told when its session exits or is display-only, and disposed when
 * the tab goes. A view's keys, size and focus go back through the callbacks
 * the terminal context gives, which know the deck.
 */
import type { DeckState, Tab } from './deck-state.js';
import type { SessionStreams, StreamSubscription } from './session-streams.js';
import { TerminalView } from './terminal-view.js';
import type { TextClipboard } from './text-clipboard.js';

export interface TabViewsDeps {
  streams: SessionStreams;
  /** Opens an untrusted link from terminal output through the safe path. */
  openLink: (uri: string) => void;
  /** Input the tab's terminal produced (keys, replies to queries). */
  onInput(id: string, data: string): void;
  /** The tab's terminal was fitted to a new size. */
  onResize(id: string, cols: number, rows: number): void;
  onFocusChange(id: string, focused: boolean): void;
  clipboard: TextClipboard;
  onClipboardError(action: 'copy' | 'paste', error: unknown): void;
  /** A command's menu was asked for in the tab's terminal, at a point of the window. */
  onCommandMenu(id: string, commandId: string, x: number, y: number): void;
}

export class TabViews {
  private readonly views = new Map<string, TerminalView>();
  /** Each tab view's share of its session's stream (none for a gone tab). */
  private readonly viewStreams = new Map<string, StreamSubscription>();

  constructor(private readonly deps: TabViewsDeps) {}

  /** The view of a tab, for the component that hosts it. */
  get(id: string): TerminalView | undefined {
    return this.views.get(id);
  }

  all(): IterableIterator<TerminalView> {
    return this.views.values();
  }

  /** One view per tab, attached while the tab exists and its session does (a gone tab's is removed). */
  sync(state: DeckState): void {
    const tabIds = new Set(state.tabs.map((tab) => tab.id));
    for (const [id, view] of this.views) {
      if (tabIds.has(id)) continue;
      this.views.delete(id);
      view.dispose();
      this.viewStreams.get(id)?.dispose();
      this.viewStreams.delete(id);
    }
    for (const tab of state.tabs) {
      let view = this.views.get(tab.id);
      if (!view) {
        view = this.create(tab, state);
        this.views.set(tab.id, view);
        if (!tab.gone) this.viewStreams.set(tab.id, this.deps.streams.subscribe(tab.id, view));
      }
      // A lost session's process is gone as an exited one's is: its terminal takes no keys either.
      view.setExited(tab.status !== 'running');
      view.setReadOnly(tab.readOnly);
    }
  }

  /** Disposes every view; the streams they were subscribed to are disposed by their owner. */
  dispose(): void {
    for (const view of this.views.values()) view.dispose();
    this.views.clear();
    this.viewStreams.clear();
  }

  private create(tab: Tab, state: DeckState): TerminalView {
    const info = state.sessions.find((session) => session.id === tab.id);
    return new TerminalView({
      id: tab.id,
      cols: info?.cols ?? 80,
      rows: info?.rows ?? 24,
      onInput: (data) => this.deps.onInput(tab.id, data),
      onResize: (cols, rows) => this.deps.onResize(tab.id, cols, rows),
      onFocusChange: (focused) => this.deps.onFocusChange(tab.id, focused),
      onLink: this.deps.openLink,
      onParsed: (cursor) => this.viewStreams.get(tab.id)?.parsed(cursor),
      clipboard: this.deps.clipboard,
      onClipboardError: this.deps.onClipboardError,
      onCommandMenu: (commandId, x, y) => this.deps.onCommandMenu(tab.id, commandId, x, y),
    });
  }
}
