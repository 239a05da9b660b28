// One chat on screen: its plan, transcript, open question and prompt box.
import { MessageText } from './MessageText.jsx';
import { createEffect, createSignal, For, Match, on, onCleanup, onMount, Show, Switch } from 'solid-js';
import { useChat } from '../../chat/chat-context.jsx';
import { useTerminal } from '../../terminal/terminal-context.jsx';
import type { Chat } from '../../chat/chat-state.js';
import { agentStyle } from '../agent-style.js';
import { CHAT_STATE_LABEL } from './chat-labels.js';
import { PromptBox } from './PromptBox.jsx';
import { QuestionDialog } from './QuestionDialog.jsx';
import { ToolCard } from './ToolCard.jsx';

const STOP_LABEL: Record<string, string> = {
  cancelled: 'Turn cancelled.',
  max_tokens: 'The agent stopped: it reached its token limit.',
  max_turn_requests: 'The agent stopped: it reached its limit of requests in one turn.',
  refusal: 'The agent refused to continue.',
};

/** How close to the bottom (px) still counts as following the transcript. */
const FOLLOW_SLACK = 48;

/** One chat: who and where, the plan, the transcript, the open question and the prompt box. */
export function ChatView(props: { chat: Chat }) {
  const chat = useChat();
  const terminal = useTerminal();
  const info = () => props.chat.info;
  let log!: HTMLDivElement;
  let prompt: HTMLTextAreaElement | undefined;
  const [confirmingClose, setConfirmingClose] = createSignal(false);
  /** Closes at once unless a turn is running, which is asked about first. */
  const requestClose = () => (info().state === 'prompting' ? setConfirmingClose(true) : chat.close(info().id));

  onMount(() => {
    // Follows new output while the developer is at the bottom; leaves them be when they scrolled up to read.
    let following = true;
    const onScroll = () => (following = log.scrollHeight - log.scrollTop - log.clientHeight <= FOLLOW_SLACK);
    const observer = new MutationObserver(() => {
      if (following) log.scrollTop = log.scrollHeight;
    });
    observer.observe(log, { childList: true, subtree: true, characterData: true });
    log.addEventListener('scroll', onScroll);
    log.scrollTop = log.scrollHeight;
    onCleanup(() => {
      observer.disconnect();
      log.removeEventListener('scroll', onScroll);
    });
    if (info().state !== 'ended') prompt?.focus();
  });
  // Context added to the draft from elsewhere (a command's "Send to chat"): the keyboard follows it, after it.
  // A view mounted by that request takes the keyboard in onMount above.
  createEffect(on(chat.promptFocus, (request) => {
    if (!prompt || request?.chatId !== info().id || info().state === 'ended') return;
    prompt.focus();
    prompt.setSelectionRange(prompt.value.length, prompt.value.length);
    prompt.scrollTop = prompt.scrollHeight;
  }, { defer: true }));

  return (
    <div class="chat-view" data-testid="chat-view" data-chat-id={info().id} data-state={info().state}>
      <header class="chat-view-head">
        <span class="agent-badge" style={agentStyle(info().agentName)} data-testid="chat-agent-badge">{info().agentName}</span>
        <span class={`chat-state ${info().state}`} data-testid="chat-state" role="status">{CHAT_STATE_LABEL[info().state]}</span>
        <span class="chat-cwd" title={info().cwd}>{info().cwd}</span>
        <Show
          when={confirmingClose()}
          fallback={
            <button type="button" class="button small ghost" data-testid="chat-close" onClick={requestClose}
              title={info().state === 'ended' ? 'Remove this chat' : 'Stop the agent and remove this chat'}>
              Close chat
            </button>
          }
        >
          {/* Mid-turn, closing throws away work in progress: asked once, the safe answer focused. */}
          <span class="chat-close-confirm" role="group" aria-label="Close this chat?" data-testid="chat-close-confirm"
            onKeyDown={(event) => event.key === 'Escape' && setConfirmingClose(false)}>
            <span>{info().agentName} is working. Stop it and close?</span>
            <button type="button" class="button small danger" onClick={() => chat.close(info().id)}>Stop and close</button>
            <button type="button" class="button small" ref={(button) => queueMicrotask(() => button.focus())} onClick={() => setConfirmingClose(false)}>Keep</button>
          </span>
        </Show>
      </header>
      <Show when={info().state === 'ended'}>
        <div class="chat-ended" role="alert" data-testid="chat-ended">
          <strong>The agent has ended.</strong> {info().error ?? ''}
        </div>
      </Show>
      <Show when={props.chat.plan.length > 0}>
        <section class="plan" aria-label="Plan" data-testid="chat-plan">
          <h3>Plan</h3>
          <ol>
            <For each={props.chat.plan}>
              {(entry) => (
                <li class={`plan-entry ${entry.status}`} data-status={entry.status}>
                  <span class="plan-mark" aria-hidden="true">{entry.status === 'completed' ? '✓' : entry.status === 'in_progress' ? '▸' : '○'}</span>
                  <span class="plan-text">{entry.content}</span>
                  <span class="visually-hidden">({entry.status.replace('_', ' ')}, {entry.priority} priority)</span>
                </li>
              )}
            </For>
          </ol>
        </section>
      </Show>
      <div ref={log} class="transcript" role="log" aria-live="polite" aria-label={`Chat with ${info().agentName}`} data-testid="chat-transcript" tabIndex={0}>
        <Show when={props.chat.entries.length === 0 && info().state !== 'ended'}>
          <p class="hint">{info().state === 'starting' ? `Starting ${info().agentName}…` : `Ask ${info().agentName} something.`}</p>
        </Show>
        <For each={props.chat.entries}>
          {(entry) => (
            <Switch>
              <Match when={entry.kind === 'message' && entry}>
                {(message) => (
                  <Switch>
                    <Match when={message().role === 'thought'}>
                      <details class="thought" open data-testid="chat-thought">
                        <summary>Thinking</summary>
                        <MessageText text={message().text} />
                      </details>
                    </Match>
                    <Match when={true}>
                      <div class={`message ${message().role}`} data-testid={`chat-message-${message().role}`}>
                        <span class="visually-hidden">{message().role === 'user' ? 'You: ' : `${info().agentName}: `}</span>
                        <Show when={message().role === 'agent'} fallback={<div class="message-text">{message().text}</div>}>
                          <MessageText text={message().text} />
                        </Show>
                      </div>
                    </Match>
                  </Switch>
                )}
              </Match>
              <Match when={entry.kind === 'tool' && entry}>
                {(tool) => <ToolCard tool={tool()} asking={props.chat.questions.some((question) => question.toolCallId === tool().toolCallId)} />}
              </Match>
              <Match when={entry.kind === 'notice' && entry}>
                {(notice) => <div class={`chat-notice ${notice().level}`} data-testid="chat-notice" role={notice().level === 'error' ? 'alert' : undefined}>{notice().text}</div>}
              </Match>
              <Match when={entry.kind === 'turn-end' && entry}>
                {(end) => <div class="chat-notice info" data-testid="chat-turn-end">{STOP_LABEL[end().stopReason] ?? `Turn ended: ${end().stopReason}.`}</div>}
              </Match>
            </Switch>
          )}
        </For>
      </div>
      <Show when={props.chat.questions[0]} keyed>
        {(question) => (
          <QuestionDialog
            question={question}
            agentName={info().agentName}
            onAnswer={(optionId) => chat.answer(info().id, question.questionId, optionId)}
            onClosed={() => prompt?.focus()}
          />
        )}
      </Show>
      <PromptBox
        ref={(element) => (prompt = element)}
        agentName={info().agentName}
        state={info().state}
        offline={terminal.offline()}
        draft={chat.draftOf(info().id)}
        onDraft={(text) => chat.setDraft(info().id, text)}
        onSend={(text) => chat.prompt(info().id, text)}
        onCancel={() => chat.cancel(info().id)}
      />
    </div>
  );
}
