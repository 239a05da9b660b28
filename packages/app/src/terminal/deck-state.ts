// The terminal panel's state (its tabs and which is in front) and the actions the deck reducer folds into it, as
// types.
import type { AgentInfo, Attention, LostInfo, PtyEvent, SessionInfo, SessionSource, SessionStatus } from '@ptydeck/contract';

/** One tab in the terminal panel. */
export interface Tab {
  id: string;
  title: string;
  source: SessionSource;
  owner: string | null;
  ownerName: string | null;
  status: SessionStatus;
  exitCode: number | null;
  signal: string | null;
  /** Ended because someone asked (terminal_close, the panel's close): a close, not a failure. */
  closeRequested: boolean;
  /** Kept after its agent's process exited, past the linger. */
  pinned: boolean;
  /** When the linger of an exited agent tab started (its exit, or when it was unpinned); epoch ms. */
  lingerFrom: number | null;
  /**
   * The server removed the session (an agent's terminal_close) while its
   * exited tab still lingers or is pinned: the tab shows how it ended, but
   * nothing about it may be sent to the server (attach, input, close).
   */
  gone: boolean;
  /** Opened in the background (an agent's new shell while the developer was elsewhere) and not looked at yet. */
  unseen: boolean;
  /** What the session's program is waiting for the developer to answer, while it waits; null otherwise. */
  attention: Attention | null;
  /** Display-only (an agent's own command, streamed to ptydeck): input is refused, so none is sent. */
  readOnly: boolean;
  /** With status `lost`: an earlier host ran it and died; what it left is read-only until the tab is closed. */
  lost: LostInfo | null;
  /** The remote whose host runs the session (SessionInfo's `host`); absent for this machine's. */
  host?: string;
  /** Taken back from the record an earlier host left on disk (lost, or exited as it was): a file anything running as the developer could have written. */
  restored: boolean;
}

export interface DeckState {
  tabs: Tab[];
  activeId: string | null;
  panelOpen: boolean;
  /** The developer hid the panel: new tabs must not open it again (the tab count says they exist). */
  panelHidden: boolean;
  /** Tab ids, most recently active first: closing the active tab returns to the one before it. */
  recent: string[];
  /** Every session the server knows, tab or not, oldest first: the overview lists them. */
  sessions: SessionInfo[];
  agents: AgentInfo[];
  /** Server instance of the last snapshot; null until the first one. */
  instance: string | null;
  /** Sessions whose tab the developer closed: later events or snapshots must not bring them back. */
  dismissed: string[];
  /** The tab whose terminal has keyboard focus, if any. */
  focusedId: string | null;
  /** `create` requests in flight. */
  pendingCreates: string[];
  /** The last problem worth telling the developer about. */
  notice: string | null;
}

export const initialDeckState: DeckState = {
  tabs: [],
  activeId: null,
  panelOpen: false,
  panelHidden: false,
  recent: [],
  sessions: [],
  agents: [],
  instance: null,
  dismissed: [],
  focusedId: null,
  pendingCreates: [],
  notice: null,
};

export type DeckAction =
  /** `now` and `lingerMs` decide which already-exited agent sessions still deserve a tab. */
  | {
      type: 'snapshot';
      sessions: SessionInfo[];
      agents: AgentInfo[];
      instance: string;
      now: number;
      lingerMs: number;
      /** After a reload: the tab that was active before, if it still exists. */
      preferredActiveId?: string | null;
      /** After a reload: the tabs that were pinned before; an exited one comes back even past its linger. */
      pinnedIds?: string[];
    }
  | { type: 'event'; event: PtyEvent }
  | { type: 'agent-added'; agent: AgentInfo }
  | { type: 'agent-removed'; id: string }
  | { type: 'create-requested'; requestId: string }
  | { type: 'created'; requestId: string; info: SessionInfo }
  | { type: 'create-failed'; requestId: string; message: string }
  | { type: 'open'; id: string }
  | { type: 'close'; id: string }
  /** Sessions the developer closed together (a disconnected agent's), tab or not: none may come back as a tab. */
  | { type: 'close-sessions'; ids: string[] }
  | { type: 'focus'; id: string }
  | { type: 'next' }
  | { type: 'previous' }
  | { type: 'pin'; id: string; pinned: boolean; now: number }
  | { type: 'set-panel'; open: boolean }
  | { type: 'toggle-panel' }
  /** Fired by a timer when an exited agent tab's linger is over. */
  | { type: 'linger-expired'; id: string }
  | { type: 'terminal-focus'; id: string | null }
  | { type: 'notice'; message: string | null };
