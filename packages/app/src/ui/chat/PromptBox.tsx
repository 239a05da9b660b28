import { MAX_CHAT_PROMPT_CHARS, type ChatState } from '@ptydeck/contract';

/**
 * Where the developer writes to the agent. Enter sends, Shift+Enter is a new
 * line; Escape cancels a running turn. A turn in progress keeps the text
 * (ACP runs one prompt at a time) until it ends.
 */
export function PromptBox(props: {
  agentName: string;
  state: ChatState;
  /** Not connected: nothing typed here could be sent, and the state shown is the last known. */
  offline: boolean;
  /** The unsent text, kept by the caller so it outlives this box. */
  draft: string;
  onDraft(text: string): void;
  onSend(text: string): boolean;
  onCancel(): void;
  ref?: (element: HTMLTextAreaElement) => void;
}) {
  const text = () => props.draft;
  const setText = (value: string) => props.onDraft(value);
  const canType = () => !props.offline && (props.state === 'ready' || props.state === 'prompting');
  const canSend = () => props.state === 'ready' && text().trim() !== '';

  function send() {
    if (!canSend()) return;
    if (props.onSend(text())) setText('');
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.isComposing) return;
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      send();
    } else if (event.key === 'Escape' && props.state === 'prompting') {
      event.preventDefault();
      props.onCancel();
    }
  }

  const placeholder = () => {
    if (props.offline) return 'Not connected to ptydeck: nothing can be sent until it is back.';
    switch (props.state) {
      case 'starting': return `${props.agentName} is starting…`;
      case 'ended': return 'This chat has ended.';
      case 'prompting': return `${props.agentName} is working (Esc cancels)…`;
      default: return `Message ${props.agentName} (Enter sends, Shift+Enter for a new line)`;
    }
  };

  return (
    <form class="prompt-box" onSubmit={(event) => (event.preventDefault(), send())}>
      <textarea
        ref={props.ref}
        data-testid="chat-prompt"
        aria-label={`Message ${props.agentName}`}
        rows={3}
        maxLength={MAX_CHAT_PROMPT_CHARS}
        placeholder={placeholder()}
        disabled={!canType()}
        value={text()}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div class="prompt-actions">
        {props.state === 'prompting' ? (
          <button type="button" class="button small ghost" data-testid="chat-cancel" onClick={() => props.onCancel()}>
            Cancel
          </button>
        ) : (
          <button type="submit" class="button small" data-testid="chat-send" disabled={!canSend()}>
            Send
          </button>
        )}
      </div>
    </form>
  );
}
