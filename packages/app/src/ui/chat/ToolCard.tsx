// A tool call's card in a chat: its kind, status, files and what it produced.
import { For, Match, Show, Switch } from 'solid-js';
import type { TranscriptEntry } from '../../chat/chat-state.js';
import { DiffView } from './DiffView.jsx';
import { ToolTerminal } from './ToolTerminal.jsx';

type ToolEntry = Extract<TranscriptEntry, { kind: 'tool' }>;

const STATUS_LABEL: Record<ToolEntry['status'], string> = {
  pending: 'pending',
  in_progress: 'running',
  completed: 'done',
  failed: 'failed',
};

/** A tool call: what it is, how far it got, the files it touches, and what it produced. */
export function ToolCard(props: { tool: ToolEntry; /** A question about this call waits for the developer. */ asking: boolean }) {
  const tool = () => props.tool;
  return (
    <article
      class="tool-card"
      data-testid="tool-card"
      data-kind={tool().toolKind}
      data-status={tool().status}
      classList={{ asking: props.asking }}
      aria-label={`${tool().title} (${tool().toolKind}, ${STATUS_LABEL[tool().status]})`}
    >
      <header class="tool-head">
        <span class="tool-kind">{tool().toolKind.replace('_', ' ')}</span>
        <span class="tool-title">{tool().title}</span>
        <Show when={props.asking}>
          <span class="tool-asking" data-testid="tool-asking">asks you</span>
        </Show>
        <span class={`tool-status ${tool().status}`} data-testid="tool-status">{STATUS_LABEL[tool().status]}</span>
      </header>
      <Show when={tool().locations.length > 0}>
        <ul class="tool-locations" aria-label="Files">
          <For each={tool().locations}>{(location) => <li>{location.path}{location.line != null ? `:${location.line}` : ''}</li>}</For>
        </ul>
      </Show>
      <For each={tool().content}>
        {(content) => (
          <Switch>
            <Match when={content.type === 'text' && content}>{(text) => <pre class="tool-text">{text().text}</pre>}</Match>
            <Match when={content.type === 'diff' && content}>
              {(diff) => <DiffView path={diff().path} oldText={diff().oldText} newText={diff().newText} />}
            </Match>
            <Match when={content.type === 'terminal' && content}>
              {/* Keyed: a card's terminal that becomes another session is another view. */}
              {(term) => <Show when={term().sessionId} keyed>{(sessionId) => <ToolTerminal sessionId={sessionId} />}</Show>}
            </Match>
          </Switch>
        )}
      </For>
    </article>
  );
}
