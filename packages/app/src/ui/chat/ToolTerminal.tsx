// A tool call's terminal in its card, streaming live, with a way to open the session's tab.
import { createEffect, onCleanup, onMount, Show } from 'solid-js';
import { lostNote } from '@ptydeck/contract';
import { MiniTerminal } from '../../chat/mini-terminal.js';
import { exitLabel } from '../../terminal/tab-label.js';
import { useTerminal } from '../../terminal/terminal-context.jsx';

/** Rows a card's terminal grows to; earlier output scrolls back. */
const MINI_MAX_ROWS = 12;

/**
 * A tool call's terminal: the session streaming live in a mini-terminal, and a
 * header that opens the session's tab in the panel (where it can be typed into).
 */
export function ToolTerminal(props: { sessionId: string }) {
  const terminal = useTerminal();
  const info = () => terminal.state.sessions.find((session) => session.id === props.sessionId);
  let host!: HTMLDivElement;

  onMount(() => {
    // Started once the session is known: its creation and the card can arrive in either order.
    let mini: MiniTerminal | null = null;
    let subscription: { parsed(cursor: number): void; dispose(): void } | null = null;
    createEffect(() => {
      const session = info();
      if (!session) return;
      if (mini) {
        mini.setCols(session.cols);
        return;
      }
      mini = new MiniTerminal({ cols: session.cols, maxRows: MINI_MAX_ROWS, onParsed: (cursor) => subscription?.parsed(cursor), onLink: terminal.openLink });
      mini.mount(host);
      subscription = terminal.watch(props.sessionId, mini.feed);
    });
    onCleanup(() => {
      subscription?.dispose();
      mini?.dispose();
    });
  });

  const label = () => info()?.title ?? 'terminal';
  return (
    <div class="tool-terminal" data-testid="tool-terminal" data-session-id={props.sessionId}>
      <div class="tool-terminal-head">
        <span class="status-dot" classList={{ running: info()?.status === 'running' }} aria-hidden="true" />
        <span class="tool-terminal-title">{label()}</span>
        <Show when={info()?.status === 'exited' ? info() : undefined}>{(ended) => <span class="exit-code" classList={{ ok: ended().exitCode === 0 }}>{exitLabel(ended())}</span>}</Show>
        <Show when={info()?.readOnly}>
          <span class="read-only-marker">read-only</span>
        </Show>
        <Show when={info()?.status === 'lost' ? info() : undefined}>
          {(lost) => <span class="lost-marker" title={lostNote(lost().lost)}>lost</span>}
        </Show>
        <Show
          when={info()}
          fallback={<span class="tool-terminal-gone">Not available: ptydeck no longer has this terminal.</span>}
        >
          <button
            type="button"
            class="button small ghost"
            data-testid="tool-terminal-open"
            aria-label={`Open ${label()} in the panel`}
            onClick={() => terminal.open(props.sessionId)}
          >
            Open in panel
          </button>
        </Show>
      </div>
      {/* Not announced by the transcript's live region: a running command would never stop talking. */}
      <div ref={host} class="tool-terminal-screen" role="img" aria-live="off" aria-label={`Live output of ${label()}`} />
    </div>
  );
}
