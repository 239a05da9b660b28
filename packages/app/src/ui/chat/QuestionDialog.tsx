// An agent's question (or ptydeck's, before a write) as a dialog with one button per option.
import { For, onCleanup, onMount, Show } from 'solid-js';
import type { OpenQuestion } from '../../chat/chat-state.js';

/**
 * A question from the agent (or from ptydeck, for a file write): one button
 * per option. Escape dismisses it, which the core answers as cancelled. It
 * closes when answered anywhere (another window, a cancelled turn): the
 * question leaves the state and this unmounts.
 */
export function QuestionDialog(props: { question: OpenQuestion; agentName: string; onAnswer(optionId: string | null): void; onClosed(): void }) {
  let dialog!: HTMLDivElement;
  const id = `question-${props.question.questionId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

  onMount(() => {
    // Focus moves in so the keyboard can answer; onto a reject option when there is one,
    // so an Enter meant for something else never allows a command.
    const buttons = [...dialog.querySelectorAll<HTMLButtonElement>('button[data-option-kind]')];
    const safe = buttons.find((button) => button.dataset.optionKind?.startsWith('reject')) ?? buttons[0];
    safe?.focus();
    onCleanup(() => {
      if (dialog.contains(document.activeElement)) props.onClosed();
    });
  });

  function onKeyDown(event: KeyboardEvent) {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    props.onAnswer(null);
  }

  return (
    <div
      ref={dialog}
      class="question"
      role="alertdialog"
      aria-modal="false"
      aria-labelledby={`${id}-title`}
      aria-describedby={props.question.detail ? `${id}-detail` : undefined}
      data-testid="question-dialog"
      onKeyDown={onKeyDown}
    >
      <div class="question-from">{props.agentName} asks</div>
      <h3 id={`${id}-title`} class="question-title">{props.question.title}</h3>
      <Show when={props.question.detail}>{(detail) => <pre id={`${id}-detail`} class="question-detail">{detail()}</pre>}</Show>
      <div class="question-options">
        <For each={props.question.options}>
          {(option) => (
            <button
              type="button"
              class="button small"
              classList={{ ghost: option.kind.startsWith('reject'), danger: option.kind.startsWith('reject') }}
              data-option-kind={option.kind}
              onClick={() => props.onAnswer(option.id)}
            >
              {option.name}
            </button>
          )}
        </For>
        <button type="button" class="button small ghost question-dismiss" title="Escape" onClick={() => props.onAnswer(null)}>
          Dismiss
        </button>
      </div>
    </div>
  );
}
