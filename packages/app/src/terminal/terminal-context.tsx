import { createStore, reconcile } from 'solid-js/store';
import { onCleanup } from 'solid-js';
import type { ChatEvent, McpLaunch } from '@ptydeck/contract';
import type { PanelClient, ConnectionStatus } from '../connection/panel-client.js';
import { createSimpleContext } from '../lib/create-context.jsx';
import { DisposableStore, Emitter } from '@ptydeck/contract';
import type { DeskNotifier, NotifyPermission } from '../attention/desk-notifier.js';
import { planChatQuestion, planNotifications } from '../attention/notification-plan.js';
import { NOTIFICATION_SETTINGS_KEY, parseNotificationSettings, type NotificationSettings } from '../attention/notification-settings.js';
import { deckReducer, lingeringTabs } from './deck-reducer.js';
import { initialDeckState, type DeckAction, type DeckState, type Tab } from './deck-state.js';
import type { PanelSettings } from './settings.js';
import { matchShortcut, shortcutLabels, type ShortcutMode } from './shortcuts.js';
import { SessionStreams, type StreamSink, type StreamSubscription } from './session-streams.js';
import { keyToInput, TypeAhead } from './type-ahead.js';
import { TerminalView } from './terminal-view.js';

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
}

const ACTIVE_TAB_KEY = 'ptydeck.activeTab';
/** Pinned tabs of this window, so a reload keeps them (sessionStorage: per window, per origin). */
const PINNED_TABS_KEY = 'ptydeck.pinnedTabs';
/** A new shell that prints nothing this long gets what was typed ahead anyway. */
const TYPE_AHEAD_MAX_MS = 2_000;

function storedPins(): string[] {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(PINNED_TABS_KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

interface TerminalStore {
  deck: DeckState;
  connection: ConnectionStatus;
  /** How agents on this machine launch `ptydeck mcp`, from the server's snapshot. */
  mcpLaunch: McpLaunch | null;
  notifications: NotificationSettings;
  notifyPermission: NotifyPermission;
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
    const views = new Map<string, TerminalView>();
    /** Subscribed to the client before the type-ahead listeners below: output reaches a terminal before keys held for it go. */
    const streams = new SessionStreams(client);
    /** Each tab view's share of its session's stream (none for a gone tab). */
    const viewStreams = new Map<string, StreamSubscription>();
    const lingerTimers = new Map<string, { since: number; handle: ReturnType<typeof setTimeout> }>();
    /** Requests this window made, so it focuses the terminal it asked for (and not one another window asked for). */
    const ownRequests = new Set<string>();
    /** Keys typed for a terminal this window asked for, before its shell can take them. */
    const typeAhead = new TypeAhead();
    const typeAheadTimers = new Map<string, ReturnType<typeof setTimeout>>();
    /** A terminal this window asked for that exists but has not taken focus yet (it does on the next frame). */
    let focusing: string | null = null;
    let deck = initialDeckState;
    const notifier = props.notifier;
    /** Prompts already notified or seen (planNotifications' memory). */
    let handledPrompts: ReadonlySet<string> = new Set();
    /** Clicks on a chat's notification: the chat pane brings that chat forward. */
    const chatClicks = new Emitter<string>({ name: 'chat notification click' });
    const [store, setStore] = createStore<TerminalStore>({
      deck,
      connection: client.status,
      mcpLaunch: null,
      notifications: parseNotificationSettings(localStorage.getItem(NOTIFICATION_SETTINGS_KEY)),
      notifyPermission: notifier.permission(),
    });

    function dispatch(action: DeckAction): void {
      const next = deckReducer(deck, action);
      if (next === deck) return;
      const previous = deck;
      deck = next;
      if (next.sessions !== previous.sessions) notifyAbout(previous, next);
      // Views first: rendering the store mounts hosts that look their view up.
      syncViews(next);
      setStore('deck', reconcile(next, { key: 'id' }));
      syncLingerTimers(next);
      // Per window (sessionStorage): a reload comes back to the tab it left.
      if (next.activeId === null) sessionStorage.removeItem(ACTIVE_TAB_KEY);
      else sessionStorage.setItem(ACTIVE_TAB_KEY, next.activeId);
      // Not before the first snapshot: it is what reads them back.
      if (next.instance !== null) {
        sessionStorage.setItem(PINNED_TABS_KEY, JSON.stringify(next.tabs.filter((tab) => tab.pinned).map((tab) => tab.id)));
      }
    }

    /** The developer is looking at the panel: its window has focus and is not hidden. */
    function lookedAt(): boolean {
      return document.hasFocus() && document.visibilityState === 'visible';
    }

    function notifyAbout(previous: DeckState, next: DeckState): void {
      const plan = planNotifications(previous.sessions, next.sessions, {
        focused: lookedAt(),
        settings: store.notifications,
        handled: handledPrompts,
      });
      handledPrompts = plan.handled;
      for (const notification of plan.show) notifier.show(notification);
    }

    function setNotifications(change: Partial<NotificationSettings>): void {
      const settings = { ...store.notifications, ...change };
      setStore('notifications', settings);
      // Per origin, like the panel's height: the choice is the developer's, not the window's.
      localStorage.setItem(NOTIFICATION_SETTINGS_KEY, JSON.stringify(settings));
    }

    /** One view per tab, attached while the tab exists and its session does (a gone tab's is removed). */
    function syncViews(state: DeckState): void {
      const tabIds = new Set(state.tabs.map((tab) => tab.id));
      for (const [id, view] of views) {
        if (tabIds.has(id)) continue;
        views.delete(id);
        view.dispose();
        viewStreams.get(id)?.dispose();
        viewStreams.delete(id);
      }
      for (const tab of state.tabs) {
        let view = views.get(tab.id);
        if (!view) {
          view = createView(tab, state);
          views.set(tab.id, view);
          if (!tab.gone) viewStreams.set(tab.id, streams.subscribe(tab.id, view));
        }
        view.setExited(tab.status === 'exited');
        view.setReadOnly(tab.readOnly);
      }
    }

    function createView(tab: Tab, state: DeckState): TerminalView {
      const info = state.sessions.find((session) => session.id === tab.id);
      return new TerminalView({
        id: tab.id,
        cols: info?.cols ?? 80,
        rows: info?.rows ?? 24,
        onInput: (data) => {
          if (typeAhead.typedInto(tab.id, data)) return;
          if (takesInput(tab.id)) client.input(tab.id, data);
        },
        onResize: (cols, rows) => {
          // A read-only session's size is its agent's, not ours to change.
          if (takesInput(tab.id)) client.resize(tab.id, cols, rows);
        },
        onFocusChange: (focused) => {
          if (focused) dispatch({ type: 'terminal-focus', id: tab.id });
          else if (deck.focusedId === tab.id) dispatch({ type: 'terminal-focus', id: null });
        },
        onLink: props.openLink,
        onParsed: (cursor) => viewStreams.get(tab.id)?.parsed(cursor),
      });
    }

    /** A running session that is not display-only: the server takes its input and its size. */
    function takesInput(id: string): boolean {
      const tab = deck.tabs.find((candidate) => candidate.id === id);
      return tab !== undefined && tab.status === 'running' && !tab.readOnly;
    }

    /** A timer per lingering tab, deadline = linger start + lingerMs; the reducer decides what expiry means. */
    function syncLingerTimers(state: DeckState): void {
      const lingering = new Map(lingeringTabs(state).map((entry) => [entry.id, entry.since]));
      for (const [id, timer] of lingerTimers) {
        if (lingering.get(id) === timer.since) continue;
        clearTimeout(timer.handle);
        lingerTimers.delete(id);
      }
      for (const [id, since] of lingering) {
        if (lingerTimers.has(id)) continue;
        const start = since > 0 ? since : Date.now();
        const handle = setTimeout(() => {
          lingerTimers.delete(id);
          dispatch({ type: 'linger-expired', id });
        }, Math.max(0, start + lingerMs - Date.now()));
        lingerTimers.set(id, { since, handle });
      }
    }

    function focusTerminalSoon(id: string | null): void {
      if (id === null) return;
      // After Solid has shown the tab's host: a hidden textarea cannot take focus.
      requestAnimationFrame(() => {
        if (focusing === id) focusing = null;
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
        for (const view of views.values()) view.setOffline(offline);
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
          preferredActiveId: sessionStorage.getItem(ACTIVE_TAB_KEY),
          pinnedIds: storedPins(),
        });
        // The PTYs may have another size now (another window, a restart): report ours on the next fit.
        for (const view of views.values()) {
          view.forgetReportedSize();
          view.fit();
        }
      }),
    );
    disposables.add(client.onEvent((event) => dispatch({ type: 'event', event })));
    disposables.add(client.onAgentAdded((agent) => dispatch({ type: 'agent-added', agent })));
    disposables.add(client.onAgentRemoved((id) => dispatch({ type: 'agent-removed', id })));
    disposables.add(
      notifier.onClick((target) => {
        window.focus();
        if (target.kind === 'session') open(target.id);
        else chatClicks.fire(target.id);
      }),
    );
    // Permission can change in the browser's site settings while the page runs; look again on return.
    const refreshPermission = () => setStore('notifyPermission', notifier.permission());
    window.addEventListener('focus', refreshPermission);
    disposables.add(() => window.removeEventListener('focus', refreshPermission));
    disposables.add(() => notifier.dispose());
    disposables.add(() => chatClicks.clear());
    /** The new shell printed something: its line editor is up, so what was typed ahead goes now, once. */
    function releaseTypeAhead(id: string): void {
      if (!typeAhead.holds(id)) return;
      clearTimeout(typeAheadTimers.get(id));
      typeAheadTimers.delete(id);
      const data = typeAhead.release(id);
      if (data !== '' && takesInput(id)) client.input(id, data);
    }

    // Capture phase, before xterm.js: while a terminal is on its way, command-line keys are held for it
    // instead of reaching the terminal focused before (or nothing at all).
    const holdTypedAhead = (event: KeyboardEvent) => {
      if ((!typeAhead.waiting && focusing === null) || event.isComposing || matchShortcut(event) !== null) return;
      const data = keyToInput(event);
      if (data === null) return;
      event.preventDefault();
      event.stopPropagation();
      if (typeAhead.typed(data) || focusing === null) return;
      if (!typeAhead.typedInto(focusing, data) && takesInput(focusing)) client.input(focusing, data);
    };
    window.addEventListener('keydown', holdTypedAhead, true);
    disposables.add(() => window.removeEventListener('keydown', holdTypedAhead, true));

    disposables.add(client.onOutput(({ id }) => releaseTypeAhead(id)));
    disposables.add(
      client.onResync(({ id, screen }) => {
        if (screen !== '') releaseTypeAhead(id);
      }),
    );
    disposables.add(
      client.onCreated(({ requestId, info }) => {
        typeAhead.created(requestId, info.id);
        if (typeAhead.holds(info.id)) typeAheadTimers.set(info.id, setTimeout(() => releaseTypeAhead(info.id), TYPE_AHEAD_MAX_MS));
        dispatch({ type: 'created', requestId, info });
        if (ownRequests.delete(requestId)) {
          focusing = info.id;
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
      for (const view of views.values()) view.dispose();
      views.clear();
      viewStreams.clear();
      for (const timer of lingerTimers.values()) clearTimeout(timer.handle);
      lingerTimers.clear();
      for (const timer of typeAheadTimers.values()) clearTimeout(timer);
      typeAheadTimers.clear();
    });
    onCleanup(() => disposables.dispose());
    client.start();

    const activeTab = () => store.deck.tabs.find((tab) => tab.id === store.deck.activeId);

    function newTerminal(): void {
      const size = views.get(deck.activeId ?? '')?.size;
      const requestId = client.create(size);
      if (requestId === null) {
        dispatch({ type: 'notice', message: 'Not connected to ptydeck: cannot open a terminal yet.' });
        return;
      }
      ownRequests.add(requestId);
      typeAhead.expect(requestId);
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
      // Closing a live tab ends its process group (an agent's too: the developer asked).
      // A gone tab's session no longer exists: closing it only closes the tab.
      if (tab.status === 'running' && !tab.gone) client.close(id);
      dispatch({ type: 'close', id });
      if (deck.focusedId === null) focusTerminalSoon(deck.activeId);
    }

    return {
      state: store.deck,
      connection: () => store.connection,
      mcpLaunch: () => store.mcpLaunch,
      activeTab,
      lingerMs,
      /** Key bindings as the developer can press them here. */
      shortcuts: shortcutLabels(props.shortcutMode),
      /** Where the page runs: a browser gets its link from `ptydeck url`, the desktop app on its own. */
      runsIn: props.shortcutMode,
      /** True while the panel is not in sync with the server: terminals are read-only, agents' state unknown. */
      offline: () => store.connection.state !== 'connected',
      open,
      close,
      /**
       * Ends the running ones among `ids` (a disconnected agent's shells) with the same close a
       * tab's close sends, and closes their tabs; their exits stay listed in the overview.
       */
      closeSessions(ids: string[]) {
        for (const id of ids) {
          const running = deck.sessions.some((session) => session.id === id && session.status === 'running');
          if (running && !deck.tabs.some((tab) => tab.id === id && tab.gone)) client.close(id);
        }
        dispatch({ type: 'close-sessions', ids });
      },
      /** Desktop notifications: what the developer chose, and whether the browser lets them show. */
      notifications: {
        settings: () => store.notifications,
        permission: () => store.notifyPermission,
        /** From the developer's click only: asks the browser's permission if it was never asked. */
        async enableInput(): Promise<void> {
          setNotifications({ input: true });
          const permission = await notifier.requestPermission();
          setStore('notifyPermission', permission);
        },
        set: setNotifications,
        /** An agent asks the developer in a chat: a notification when they are not looking (and want them). */
        chatQuestion(chat: { id: string; agentName: string }, question: Extract<ChatEvent, { type: 'question' }>): void {
          const notification = planChatQuestion(chat, question, { focused: lookedAt(), settings: store.notifications });
          if (notification) notifier.show(notification);
        },
        /** A chat's notification was clicked (the window is already brought forward). */
        onChatClick: chatClicks.on,
      },
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
      closePanel() {
        dispatch({ type: 'set-panel', open: false });
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
      /** The panel socket's chat half, for the chat context: chats share the socket, not the panel's state. */
      chatChannel: client satisfies ChatChannel as ChatChannel,
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
