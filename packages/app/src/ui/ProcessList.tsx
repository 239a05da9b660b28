// A session's processes (pid, command, since), shown on request.
import type { LeftoverKind, SessionProcess } from '@ptydeck/contract';
import { For, Show } from 'solid-js';
import { shownText } from '../lib/shown-text.js';
import { useTerminal } from '../terminal/terminal-context.jsx';

const sinceFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** A session's processes: pid, command, since; with `endable`, a button ends each (the core checks it is the session's). */
export function ProcessList(props: { sessionId: string; processes: readonly SessionProcess[]; endable?: boolean; kind?: LeftoverKind }) {
  const terminal = useTerminal();
  const ending = (pid: number) => terminal.processes.state.ending.includes(pid);
  return (
    <ul class="process-list" data-testid="process-list" data-session-id={props.sessionId}>
      <For each={props.processes}>
        {(proc) => (
          <li class="process-row" data-testid="process" data-pid={proc.pid}>
            <span class="process-pid">{proc.pid}</span>
            {/* A process's command line is its own to set (exec -a): a right-to-left override in it reordered the row. */}
            <code class="process-command" title={shownText(proc.command)}>{shownText(proc.command) || '(no command line)'}</code>
            <span class="process-since">since {sinceFormat.format(proc.startedAt)}</span>
            <Show when={props.endable}>
              <button
                type="button"
                class="button ghost small danger"
                data-testid="end-process"
                disabled={terminal.offline() || ending(proc.pid)}
                title="SIGTERM, then SIGKILL after 3 s if it is still running"
                onClick={() => terminal.processes.end(props.sessionId, [proc.pid], props.kind)}
              >
                {ending(proc.pid) ? 'Ending…' : 'End'}
              </button>
            </Show>
          </li>
        )}
      </For>
    </ul>
  );
}

/** The "processes" toggle of a session and, once asked for, its list. */
export function SessionProcesses(props: { sessionId: string }) {
  const terminal = useTerminal();
  const shown = () => terminal.processes.state.shown[props.sessionId];
  return (
    <>
      <button
        type="button"
        class="process-toggle"
        data-testid="processes-toggle"
        aria-expanded={shown() !== undefined}
        disabled={terminal.offline()}
        onClick={() => terminal.processes.toggle(props.sessionId)}
      >
        {/* A verb and a caret: a bare dim "processes" read as a stray label, not as something to click. */}
        {shown() === undefined ? '▸ Show processes' : '▾ Hide processes'}
      </button>
      <Show when={shown()}>
        {(entry) => (
          <Show when={entry().processes} fallback={<p class="empty small">{entry().known ? 'Looking…' : 'This system cannot say (no /proc).'}</p>}>
            {(processes) => <ProcessList sessionId={props.sessionId} processes={processes()} />}
          </Show>
        )}
      </Show>
    </>
  );
}
