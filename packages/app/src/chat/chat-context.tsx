// The chat pane's Solid context: wires chat messages from the panel's socket into the chat reducer and actions
// back out.
import { createStore, reconcile } from 'solid-js/store';
import { createSignal, onCleanup } from 'solid-js';
import { DisposableStore, MAX_CHAT_PROMPT_CHARS } from '@ptydeck/contract';
import { createSimpleContext } from '../lib/create-context.jsx';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { chatReducer } from './chat-reducer.js';
import { initialChatsState, type ChatAction, type ChatsState } from './chat-state.js';

/** Whether the chat pane is shown, per origin like the panel's height: the developer's layout, not the window's. */
const PANE_OPEN_KEY = 'ptydeck.chatPaneOpen';

interface ChatStore {
  chats: ChatsState;
  paneOpen: boolean;
  /** The last thing that could not be sent (offline), shown in the pane; null when none. */
  problem: string | null;
  /** What the developer has typed and not sent, per chat: switching chats keeps it. */
  drafts: Record<string, string>;
}

/**
 * The chat pane's state and actions: chats with ACP agents that the core
 * hosts, over the panel's own socket (the terminal context's client). The
 * state is the pure chat reducer's; this only wires messages in and actions
 * out, and remembers whether the pane is open.
 */
export const { Provider: ChatProvider, use: useChat } = createSimpleContext({
  name: 'Chat',
  // No props of its own: it shares the terminal context's client.
  init: (_props: Record<string, unknown>) => {
    const terminal = useTerminal();
    const client = terminal.chatChannel;
    const disposables = new DisposableStore();
    let state = initialChatsState;
    const [store, setStore] = createStore<ChatStore>({
      chats: state,
      paneOpen: localStorage.getItem(PANE_OPEN_KEY) === 'true',
      problem: null,
      drafts: {},
    });

    // Asks the shown chat's prompt box for the keyboard (context added to it from elsewhere in the panel).
    const [promptFocus, setPromptFocus] = createSignal<{ chatId: string } | null>(null, { equals: false });

    const chatOf = (id: string) => store.chats.chats.find((chat) => chat.info.id === id);

    function dispatch(action: ChatAction): void {
      const previous = state;
      const next = chatReducer(previous, action);
      if (next === previous) return;
      state = next;
      // A streamed chunk changes one chat: diff that chat only, not every transcript in the store.
      const one = onlyChangedChat(previous, next);
      if (one >= 0) setStore('chats', 'chats', one, reconcile(next.chats[one]!, { key: 'key', merge: true }));
      else setStore('chats', reconcile(next, { key: 'key', merge: true }));
      if (next.chats.length === previous.chats.length && one >= 0) return;
      // A closed chat's draft goes with it.
      const drafts = Object.entries(store.drafts);
      const kept = drafts.filter(([id]) => next.chats.some((chat) => chat.info.id === id));
      if (kept.length !== drafts.length) setStore('drafts', reconcile(Object.fromEntries(kept)));
    }

    disposables.add(
      client.onChat((message) => {
        switch (message.type) {
          case 'chat.agents':
            return dispatch({ type: 'agents', catalog: { agents: message.agents, configPath: message.configPath, configError: message.configError } });
          case 'chat.list':
            return dispatch({ type: 'list', chats: message.chats });
          case 'chat.opened':
            return dispatch({ type: 'opened', info: message.info, ...(message.requestId !== undefined ? { requestId: message.requestId } : {}) });
          case 'chat.event': {
            const { chatId, event } = message;
            dispatch({ type: 'event', chatId, event });
            // Live only: a reload's chat.list replays open questions without asking again.
            const chat = chatOf(chatId);
            if (event.type === 'question' && chat) terminal.notifications.chatQuestion({ id: chatId, agentName: chat.info.agentName }, event);
            return;
          }
          case 'chat.closed':
            return dispatch({ type: 'closed', chatId: message.chatId });
        }
      }),
    );
    disposables.add(
      terminal.notifications.onChatClick((chatId) => {
        if (!chatOf(chatId)) return; // closed since
        setPaneOpen(true);
        dispatch({ type: 'select', chatId });
      }),
    );
    disposables.add(client.onChatOpenFailed(({ requestId, message }) => dispatch({ type: 'open-failed', requestId, message })));
    onCleanup(() => disposables.dispose());

    /** Sends, or says in the pane why it could not. */
    function sent(ok: boolean, what: string): boolean {
      setStore('problem', ok ? null : `Not connected to ptydeck: could not ${what}.`);
      return ok;
    }

    function setPaneOpen(open: boolean): void {
      // Opening reads agents.json afresh (the core also tells of changes while it watches the file).
      // Offline, the connection's own list comes when it is back.
      if (open && !store.paneOpen) client.sendChat({ type: 'chat.refresh_agents' });
      setStore('paneOpen', open);
      localStorage.setItem(PANE_OPEN_KEY, String(open));
    }

    return {
      state: store.chats,
      paneOpen: () => store.paneOpen,
      problem: () => store.problem,
      activeChat: () => (store.chats.activeId === null ? undefined : chatOf(store.chats.activeId)),
      chatOf,
      setPaneOpen,
      togglePane() {
        setPaneOpen(!store.paneOpen);
      },
      /** Starts `agent` in `cwd` (the server's launch directory when empty). */
      start(agent: string, cwd: string): void {
        const trimmed = cwd.trim();
        const requestId = client.openChat(agent, trimmed === '' ? undefined : trimmed);
        if (sent(requestId !== null, `start ${agent}`)) dispatch({ type: 'open-requested', requestId: requestId!, agent });
      },
      dismissOpening(requestId: string): void {
        dispatch({ type: 'dismiss-opening', requestId });
      },
      /** Sends a prompt; false when there was nothing to send or it could not go. */
      prompt(chatId: string, text: string): boolean {
        if (text.trim() === '') return false;
        if (text.length > MAX_CHAT_PROMPT_CHARS) {
          setStore('problem', `That prompt is too long (over ${MAX_CHAT_PROMPT_CHARS} characters).`);
          return false;
        }
        return sent(client.sendChat({ type: 'chat.prompt', chatId, text }), 'send the prompt');
      },
      cancel(chatId: string): void {
        sent(client.sendChat({ type: 'chat.cancel', chatId }), 'cancel the turn');
      },
      /** null dismisses the question: the core answers it as cancelled. */
      answer(chatId: string, questionId: string, optionId: string | null): void {
        sent(client.sendChat({ type: 'chat.answer', chatId, questionId, optionId }), 'answer');
      },
      close(chatId: string): void {
        sent(client.sendChat({ type: 'chat.close', chatId }), 'close the chat');
      },
      refreshAgents(): void {
        sent(client.sendChat({ type: 'chat.refresh_agents' }), 'look for agents');
      },
      /** null shows the start form. */
      select(chatId: string | null): void {
        dispatch({ type: 'select', chatId });
      },
      /** The latest request for a chat's prompt box to take the keyboard; a new object each time. */
      promptFocus,
      draftOf(chatId: string): string {
        return store.drafts[chatId] ?? '';
      },
      setDraft(chatId: string, text: string): void {
        setStore('drafts', chatId, text);
      },
      /**
       * Adds context (a command and its output) to the end of a chat's unsent
       * prompt, after a blank line, and shows that chat with the keyboard in
       * its prompt; false (saying why) when it would not fit in a prompt.
       */
      addToDraft(chatId: string, text: string): boolean {
        const draft = store.drafts[chatId] ?? '';
        const next = draft.trim() === '' ? text : `${draft.replace(/\s+$/, '')}\n\n${text}`;
        if (next.length > MAX_CHAT_PROMPT_CHARS) {
          setStore('problem', `That would make the prompt too long (over ${MAX_CHAT_PROMPT_CHARS} characters).`);
          return false;
        }
        setStore('drafts', chatId, next);
        setPaneOpen(true);
        dispatch({ type: 'select', chatId });
        setPromptFocus({ chatId });
        return true;
      },
      dismissProblem(): void {
        setStore('problem', null);
      },
    };
  },
});

export type ChatContextValue = ReturnType<typeof useChat>;

/** The index of the one chat that differs when nothing else in the state does; -1 otherwise. */
function onlyChangedChat(previous: ChatsState, next: ChatsState): number {
  if (previous.catalog !== next.catalog || previous.activeId !== next.activeId || previous.openings !== next.openings) return -1;
  if (previous.chats.length !== next.chats.length) return -1;
  let changed = -1;
  for (let i = 0; i < next.chats.length; i++) {
    if (previous.chats[i] === next.chats[i]) continue;
    if (changed >= 0 || previous.chats[i]!.key !== next.chats[i]!.key) return -1;
    changed = i;
  }
  return changed;
}
