// The panel's Solid context: the protocol client, the deck reducer's state, and the actions the UI takes on
// sessions.
import { createStore, reconcile } from 'solid-js/store';
import { onCleanup } from 'solid-js';
import type { McpLaunch, RemoteHost } from '@ptydeck/contract';
import type { PanelClient, ConnectionStatus } from '../connection/panel-client.js';
import { createSimpleContext } from '../lib/create-context.jsx';
import { DisposableStore } from '@ptydeck/contract';
import type { DeskNotifier, NotifyPermission } from '../attention/desk-notifier.js';
import type { NotificationSettings } from '../attention/notification-settings.js';
import { clipboardKeyLabels, MAC_PLATFORM } from './clipboard-keys.js';
import { createDeckNotifications, storedNotificationSettings } from './deck-notifications.js';
import { deckReducer } from './deck-reducer.js';
import { initialDeckState, type DeckAction, type DeckState } from './deck-state.js';
import { storeDeck, storedActiveTab, storedPins } from './deck-storage.js';
import { LingerTimers } from './linger-timers.js';
import type { PanelSettings } from './settings.js';
import { shortcutLabels, type ShortcutMode } from './shortcuts.js';
import { SessionStreams, type StreamSink, type StreamSubscription } from './session-streams.js';
import { TabViews } from './tab-views.js';
import type { TerminalView } from './terminal-view.js';
import type { TextClipboard } from './text-clipboard.js';
import { TypeAheadKeys } from './type-ahead-keys.js';
import { showsLineEditor } from './type-ahead.js';
import { createProcessPanel } from '../processes/process-panel.js';

export type ChatChannel = Pick<PanelClient, 'onChat' | 'onChatOpenFailed' | 'openChat' | 'sendChat'>;

export interface TerminalProviderProps extends Record<string, unknown> {
  /** Makes the protocol client; the provider starts it and disposes it with itself. */
  createClient: () => PanelClient;
  settings: PanelSettings;
  /** Opens an untrusted link from terminal output through the safe path. */
  openLink: (uri: string) => void;
  /** Which key bindings reach the page, so the panel advertises those. */
  shortcutMode: ShortcutMode;
  /** Shows desktop notifications (the web API, or the desktop app's main process); the provider disposes it. */
  notifier: DeskNotifier;
  /** The system clipboard: the terminals' copy and paste. */
  clipboard: TextClipboard;
}

interface TerminalStore {
  deck: DeckState;
  connection: ConnectionStatus;
  /** How agents on this machine launch `ptydeck mcp`, from the server's snapshot. */
  mcpLaunch: McpLaunch | null;
  notifications: NotificationSettings;
  notifyPermission: NotifyPermission;
  /** The remote hosts the core reaches for this panel, and how each link fares. */
  hosts: RemoteHost[];
  /** The command menu, while open: a tab's command, at a point of the window. */
  commandMenu: CommandMenuAt | null;
}

export interface CommandMenuAt {
  id: string;
  commandId: string;
  x: number;
  y: number;
}

/**
 * The panel's state and actions. One store: the deck (tabs, active tab, panel
 * open) computed by the pure reducer, and the connection status. xterm.js
 * instances live beside the store, one per tab, and get output directly from
 * the client so nothing waits for a render.
 */
export const { Provider: TerminalProvider, use: useTerminal } = createSimpleContext({
  name: 'Terminal',
  init: (props: TerminalProviderProps) => {
    const client = props.createClient();
    const lingerMs = props.settings.lingerMs;
    const disposables = new DisposableStore();
    /** Subscribed to the client before the type-ahead listeners below: output reaches a terminal before keys held for it go. */
    const streams = new SessionStreams(client);
    /** Requests this window made, so it focuses the terminal it asked for (and not one another window asked for). */
    const ownRequests = new Set<string>();
    let deck = initialDeckState;
    const [store, setStore] = createStore<TerminalStore>({
      deck,
      connection: client.status,
      mcpLaunch: null,
      notifications: storedNotificationSettings(),
      notifyPermission: props.notifier.permission(),
      hosts: [],
      commandMenu: null,
    });
    /** Keys typed for a terminal this window asked for, before its shell can take them. */
    const typeAhead = new TypeAheadKeys(client, takesInput);
    const views = new TabViews({
      streams,
      openLink: props.openLink,
      onInput: (id, data) => {
        if (typeAhead.typedInto(id, data)) return;
        if (takesInput(id)) client.input(id, data);
      },
      onResize: (id, cols, rows) => {
        // A read-only session's size is its agent's, not ours to change.
        if (takesInput(id)) client.resize(id, cols, rows);
      },
      onFocusChange: (id, focused) => {
        if (focused) dispatch({ type: 'terminal-focus', id });
        else if (deck.focusedId === id) dispatch({ type: 'terminal-focus', id: null });
      },
      clipboard: props.clipboard,
      onClipboardError: (action, error) => {
        const reason = error instanceof Error ? error.message : String(error);
        dispatch({ type: 'notice', message: `Could not ${action}: the clipboard was not available (${reason}).` });
      },
      onCommandMenu: (id, commandId, x, y) => setStore('commandMenu', { id, commandId, x, y }),
    });
    const lingerTimers = new LingerTimers(lingerMs, (id) => dispatch({ type: 'linger-expired', id }));
    const notifications = createDeckNotifications({
      notifier: props.notifier,
      settings: () => store.notifications,
      permission: () => store.notifyPermission,
      setSettings: (settings) => setStore('notifications', settings),
      setPermission: (permission) => setStore('notifyPermission', permission),
      openSession: (id) => open(id),
    });

    function dispatch(action: DeckAction): void {
      const next = deckReducer(deck, action);
      if (next === deck) return;
      const previous = deck;
      deck = next;
      if (next.sessions !== previous.sessions) notifications.sessionsChanged(previous, next);
      // Views first: rendering the store mounts hosts that look their view up.
      views.sync(next);
      setStore('deck', reconcile(next, { key: 'id' }));
      lingerTimers.sync(next);
      storeDeck(next);
    }

    /** A running session that is not display-only: the server takes its input and its size. */
    function takesInput(id: string): boolean {
      const tab = deck.tabs.find((candidate) => candidate.id === id);
      return tab !== undefined && tab.status === 'running' && !tab.readOnly;
    }

    function focusTerminalSoon(id: string | null): void {
      if (id === null) return;
      // After Solid has shown the tab's host: a hidden textarea cannot take focus.
      requestAnimationFrame(() => {
        typeAhead.focused(id);
        const view = views.get(id);
        if (!view) return;
        view.fit();
        view.focus();
      });
    }

    disposables.add(
      client.onStatus((status) => {
        setStore('connection', reconcile(status));
        const offline = status.state !== 'connected';
        for (const view of views.all()) view.setOffline(offline);
      }),
    );
    disposables.add(
      client.onSnapshot((snapshot) => {
        setStore('mcpLaunch', snapshot.mcpLaunch ?? null);
        dispatch({
          type: 'snapshot',
          sessions: snapshot.sessions,
          agents: snapshot.agents,
          instance: snapshot.instance,
          now: Date.now(),
          lingerMs,
          preferredActiveId: storedActiveTab(),
          pinnedIds: storedPins(),
        });
        // The PTYs may have another size now (another window, a restart): report ours on the next fit.
        for (const view of views.all()) {
          view.forgetReportedSize();
          view.fit();
        }
      }),
    );
    const processes = createProcessPanel({ client, notice: (message) => dispatch({ type: 'notice', message }), openLink: props.openLink });
    disposables.add(processes.dispose);
    disposables.add(client.onEvent((event) => dispatch({ type: 'event', event })));
    // Every session's commands, to their tabs' terminals: a record comes before the output it points into.
    disposables.add(
      client.onTimeline((message) => {
        if (message.type === 'timeline.snapshot') for (const record of message.commands) views.get(record.session)?.command(record);
        else if (message.type === 'timeline.command') views.get(message.command.session)?.command(message.command);
      }),
    );
    disposables.add(client.onHosts((hosts) => setStore('hosts', reconcile(hosts, { key: 'name' }))));
    disposables.add(client.onAgentAdded((agent) => dispatch({ type: 'agent-added', agent })));
    disposables.add(client.onAgentRemoved((id) => dispatch({ type: 'agent-removed', id })));
    disposables.add(notifications.dispose);
    disposables.add(() => typeAhead.dispose());
    // Not on the marks a shell prints before its line editor is up (type-ahead.ts).
    disposables.add(client.onOutput(({ id, data }) => showsLineEditor(data) && typeAhead.release(id)));
    disposables.add(
      client.onResync(({ id, screen }) => {
        if (screen !== '') typeAhead.release(id);
      }),
    );
    disposables.add(
      client.onCreated(({ requestId, info }) => {
        typeAhead.created(requestId, info.id);
        dispatch({ type: 'created', requestId, info });
        if (ownRequests.delete(requestId)) {
          typeAhead.focusingOn(info.id);
          focusTerminalSoon(info.id);
        }
      }),
    );
    disposables.add(
      client.onError((error) => {
        if (error.requestId !== undefined && deck.pendingCreates.includes(error.requestId)) {
          ownRequests.delete(error.requestId);
          typeAhead.failed(error.requestId);
          dispatch({ type: 'create-failed', requestId: error.requestId, message: `Could not open a terminal: ${error.message}` });
          return;
        }
        // A session that ended between a snapshot and our attach: its pty.removed follows, nothing to tell.
        if (error.code === 'no_such_session') return;
        dispatch({ type: 'notice', message: `${error.message} (${error.code})` });
      }),
    );
    disposables.add(() => {
      streams.dispose();
      client.dispose();
      views.dispose();
      lingerTimers.dispose();
    });
    onCleanup(() => disposables.dispose());
    client.start();

    /** Whether a command may be run again in tab `id`: the developer's own (never an agent's), taking input. */
    function canRerun(id: string): boolean {
      return takesInput(id) && deck.tabs.some((tab) => tab.id === id && tab.source === 'user');
    }

    const activeTab = () => store.deck.tabs.find((tab) => tab.id === store.deck.activeId);

    /** Opens the developer's shell here, or on the remote `host` names. */
    function newTerminal(host?: string): void {
      const size = views.get(deck.activeId ?? '')?.size;
      const requestId = client.create(size, host);
      if (requestId === null) {
        dispatch({ type: 'notice', message: 'Not connected to ptydeck: cannot open a terminal yet.' });
        return;
      }
      ownRequests.add(requestId);
      typeAhead.requested(requestId);
      dispatch({ type: 'create-requested', requestId });
    }

    /** Shows a session's tab (adding it back if it was closed) and focuses its terminal. */
    function open(id: string): void {
      dispatch({ type: 'open', id });
      focusTerminalSoon(id);
    }

    function close(id: string | null = deck.activeId): void {
      if (id === null) return;
      const tab = deck.tabs.find((candidate) => candidate.id === id);
      if (!tab) return;
      // Closing a live tab ends its process group (an agent's too: the developer asked);
      // closing a lost one removes what the restart left of it, its saved output too.
      // A gone tab's session no longer exists: closing it only closes the tab.
      if (tab.status !== 'exited' && !tab.gone) client.close(id);
      dispatch({ type: 'close', id });
      if (deck.focusedId === null) focusTerminalSoon(deck.activeId);
    }

    return {
      state: store.deck,
      connection: () => store.connection,
      mcpLaunch: () => store.mcpLaunch,
      /** The remotes and their links' states. */
      hosts: () => store.hosts,
      /** A remote's link state; 'connected' for one this panel does not know (nothing to warn of). */
      hostState: (name: string) => store.hosts.find((host) => host.name === name)?.state ?? 'connected',
      hostDetail: (name: string) => store.hosts.find((host) => host.name === name)?.detail ?? null,
      activeTab,
      lingerMs,
      /** Key bindings as the developer can press them here. */
      shortcuts: shortcutLabels(props.shortcutMode),
      /** The system clipboard (a command's menu copies through it). */
      clipboard: props.clipboard,
      /** The copy and paste keys here, for the terminal's context menu. */
      clipboardKeys: clipboardKeyLabels(MAC_PLATFORM),
      /** Where the page runs: a browser gets its link from `ptydeck url`, the desktop app on its own. */
      runsIn: props.shortcutMode,
      /** True while the panel is not in sync with the server: terminals are read-only, agents' state unknown. */
      offline: () => store.connection.state !== 'connected',
      open,
      close,
      /**
       * Ends the running ones among `ids` (a disconnected agent's shells) with the same close a
       * tab's close sends, and closes their tabs; their exits stay listed in the overview.
       * Lost ones are removed, as their tab's close removes them.
       */
      closeSessions(ids: string[]) {
        for (const id of ids) {
          const closable = deck.sessions.some((session) => session.id === id && session.status !== 'exited');
          if (closable && !deck.tabs.some((tab) => tab.id === id && tab.gone)) client.close(id);
        }
        dispatch({ type: 'close-sessions', ids });
      },
      notifications: notifications.api,
      focus(id: string) {
        dispatch({ type: 'focus', id });
        focusTerminalSoon(id);
      },
      next() {
        dispatch({ type: 'next' });
        focusTerminalSoon(deck.activeId);
      },
      previous() {
        dispatch({ type: 'previous' });
        focusTerminalSoon(deck.activeId);
      },
      newTerminal,
      pin(id: string, pinned: boolean) {
        dispatch({ type: 'pin', id, pinned, now: Date.now() });
      },
      togglePanel() {
        if (!deck.panelOpen && deck.tabs.length === 0) {
          newTerminal();
          return;
        }
        dispatch({ type: 'toggle-panel' });
        if (deck.panelOpen) focusTerminalSoon(deck.activeId);
      },
      /** Puts the keyboard in the active tab's terminal, when the panel shows it. */
      focusActive() {
        if (deck.panelOpen) focusTerminalSoon(deck.activeId);
      },
      closePanel() {
        dispatch({ type: 'set-panel', open: false });
      },
      /** Tells the developer something in the panel's notice. */
      notice(message: string) {
        dispatch({ type: 'notice', message });
      },
      dismissNotice() {
        dispatch({ type: 'notice', message: null });
      },
      /**
       * Streams a session's output to another view of it (a chat card's
       * terminal), beside its tab's; dispose the subscription with the view.
       */
      watch(id: string, sink: StreamSink): StreamSubscription {
        return streams.subscribe(id, sink);
      },
      /** Opens a link from a session's output (an OSC 8 hyperlink in a chat card's terminal) through the safe path. */
      openLink: (uri: string) => props.openLink(uri),
      /** Sessions' processes and leftovers, and the port chips' action. */
      processes,
      /** The panel socket's chat half, for the chat context: chats share the socket, not the panel's state. */
      chatChannel: client satisfies ChatChannel as ChatChannel,
      /** The panel socket's timeline half: every session's commands, and recordings on request. */
      timelineChannel: client as Pick<PanelClient, 'onTimeline' | 'exportRecording' | 'onError'>,
      /** The command menu, while open. */
      commandMenu: () => store.commandMenu,
      closeCommandMenu() {
        setStore('commandMenu', null);
      },
      canRerun,
      /** Types a command line and Enter into the developer's own tab `id`, as if typed there. */
      rerun(id: string, command: string): void {
        if (!canRerun(id)) return;
        client.input(id, `${command}\r`);
        focusTerminalSoon(id);
      },
      /** Shows a session's tab scrolled to one of its commands (its tab alone when the command has no mark there). */
      revealCommand(id: string, commandId: string): void {
        open(id);
        // After the tab is shown and fitted (open's own frame): a resize would move the rows.
        requestAnimationFrame(() => views.get(id)?.revealCommand(commandId));
      },
      /** The xterm.js view of a tab, for the component that hosts it. */
      viewFor(id: string): TerminalView | undefined {
        return views.get(id);
      },
      /** The text in a tab's terminal buffer (tests and diagnostics). */
      terminalText(id: string): string | null {
        return views.get(id)?.text() ?? null;
      },
    };
  },
});

export type TerminalContextValue = ReturnType<typeof useTerminal>;
