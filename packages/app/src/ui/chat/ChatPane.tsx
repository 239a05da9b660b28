// The chat pane docked on the right: a tab per chat, the start form, and its remembered width.
import { createSignal, For, onCleanup, onMount, Show } from 'solid-js';
import { useChat } from '../../chat/chat-context.jsx';
import { agentStyle } from '../agent-style.js';
import { arrowResizeStep, followDrag } from '../resize-edge.js';
import { CHAT_STATE_LABEL, chatName } from './chat-labels.js';
import { ChatView } from './ChatView.jsx';
import { StartChat } from './StartChat.jsx';

const WIDTH_KEY = 'ptydeck.chatPaneWidth';
const MIN_WIDTH = 300;
/** Room kept beside the pane for the overview and the terminal panel. */
const MIN_BESIDE = 360;

function clampWidth(width: number): number {
  return Math.round(Math.max(MIN_WIDTH, Math.min(width, window.innerWidth - MIN_BESIDE)));
}

function storedWidth(): number {
  const stored = Number(localStorage.getItem(WIDTH_KEY));
  return clampWidth(Number.isFinite(stored) && stored > 0 ? stored : 440);
}

/** Chats with ACP agents, docked on the right beside the overview and the terminal panel. */
export function ChatPane() {
  const chat = useChat();
  const [width, setWidth] = createSignal(storedWidth());

  onMount(() => {
    const onWindowResize = () => setWidth((current) => clampWidth(current));
    window.addEventListener('resize', onWindowResize);
    onCleanup(() => window.removeEventListener('resize', onWindowResize));
  });

  function startDrag(event: PointerEvent) {
    followDrag(
      event,
      (move) => setWidth(clampWidth(window.innerWidth - move.clientX)),
      () => localStorage.setItem(WIDTH_KEY, String(width())),
    );
  }

  function resizeByKey(event: KeyboardEvent) {
    // The pane is docked right: its edge moves left to grow it.
    const step = arrowResizeStep(event, 'ArrowLeft', 'ArrowRight');
    if (step === null) return;
    setWidth((current) => clampWidth(current + step));
    localStorage.setItem(WIDTH_KEY, String(width()));
  }

  // Roving focus among the chat tabs, as in the panel's tab strip.
  function onTabKey(event: KeyboardEvent) {
    const tabs = [...(event.currentTarget as HTMLElement).querySelectorAll<HTMLButtonElement>('[role="tab"]')];
    const index = tabs.indexOf(document.activeElement as HTMLButtonElement);
    if (index < 0) return;
    let target: number | null = null;
    if (event.key === 'ArrowRight') target = (index + 1) % tabs.length;
    else if (event.key === 'ArrowLeft') target = (index - 1 + tabs.length) % tabs.length;
    else if (event.key === 'Home') target = 0;
    else if (event.key === 'End') target = tabs.length - 1;
    if (target === null) return;
    event.preventDefault();
    tabs[target]!.focus();
    tabs[target]!.click();
  }

  return (
    <aside class="chat-pane" aria-label="Chats with agents" data-testid="chat-pane" hidden={!chat.paneOpen()} style={{ width: `${width()}px` }}>
      <div
        class="chat-resize"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize chat pane"
        aria-valuenow={width()}
        aria-valuemin={MIN_WIDTH}
        tabIndex={0}
        onPointerDown={startDrag}
        onKeyDown={resizeByKey}
      />
      <div class="chat-head">
        <div class="chat-tabs" role="tablist" aria-label="Chats" data-testid="chat-tabs" onKeyDown={onTabKey}>
          <For each={chat.state.chats}>
            {(item) => {
              const selected = () => chat.state.activeId === item.info.id;
              return (
                <button
                  type="button"
                  role="tab"
                  class="chat-tab"
                  classList={{ active: selected() }}
                  aria-selected={selected()}
                  aria-controls="chat-body"
                  tabIndex={selected() ? 0 : -1}
                  aria-label={`${chatName(item, chat.state.chats)} chat, ${CHAT_STATE_LABEL[item.info.state]}${item.questions.length > 0 ? ', asks you' : ''}`}
                  data-testid="chat-tab"
                  data-chat-id={item.info.id}
                  data-state={item.info.state}
                  onClick={() => chat.select(item.info.id)}
                >
                  <span class={`chat-dot ${item.info.state}`} classList={{ asking: item.questions.length > 0 }} aria-hidden="true" />
                  <span class="agent-badge" style={agentStyle(item.info.agentName)}>{chatName(item, chat.state.chats)}</span>
                </button>
              );
            }}
          </For>
          <button
            type="button"
            role="tab"
            class="chat-tab new"
            aria-selected={chat.state.activeId === null}
            aria-controls="chat-body"
            tabIndex={chat.state.activeId === null ? 0 : -1}
            data-testid="chat-new"
            onClick={() => chat.select(null)}
          >
            + New chat
          </button>
        </div>
        <button type="button" class="icon-button" aria-label="Hide chat pane" data-testid="chat-pane-hide" onClick={() => chat.setPaneOpen(false)}>
          <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M6 4l4 4-4 4" fill="none" stroke="currentColor" stroke-width="1.5" /></svg>
        </button>
      </div>
      <Show when={chat.problem()}>
        {(problem) => (
          <div class="config-error" role="alert" data-testid="chat-problem">
            {problem()}
            <button type="button" class="icon-button" aria-label="Dismiss" onClick={() => chat.dismissProblem()}>✕</button>
          </div>
        )}
      </Show>
      <div id="chat-body" class="chat-body" role="tabpanel" aria-label={chat.activeChat() ? `${chatName(chat.activeChat()!, chat.state.chats)} chat` : 'New chat'}>
        <Show when={chat.activeChat()} keyed fallback={<StartChat />}>
          {(active) => <ChatView chat={active} />}
        </Show>
      </div>
    </aside>
  );
}
