// The overview's list of processes that outlived their session, with a control to end them.
import { createSignal, For, Show } from 'solid-js';
import { leftoverMeta, leftRunningView } from '../processes/left-running-view.js';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { PortChips } from './PortChips.jsx';
import { ProcessList } from './ProcessList.jsx';

/**
 * Processes that outlived their session (a closed tab's `nohup` job, a dev
 * server that daemonized) or a dead host's chat (its agent, what it started), with their ports and a control to end them. A
 * long list shows its newest cards and "and N more", so the agents and what
 * waits for the developer's input stay in view.
 */
export function LeftRunning() {
  const terminal = useTerminal();
  const sessions = () => terminal.processes.state.leftovers;
  const [expanded, setExpanded] = createSignal(false);
  const view = () => leftRunningView(sessions(), expanded());
  const hidden = () => leftRunningView(sessions(), false).more;
  return (
    <Show when={sessions().length > 0}>
      <section class="overview-section" aria-labelledby="left-running-heading" data-testid="left-running">
        <div class="section-head">
          <h2 id="left-running-heading">Left running</h2>
          <span class="count">{sessions().reduce((sum, session) => sum + session.processes.length, 0)}</span>
        </div>
        <ul class="agent-list">
          <For each={view().shown}>
            {(session) => (
              <li class="agent-card" data-testid="leftover-session" data-session-id={session.id}>
                <div class="agent-head">
                  <div>
                    <div class="agent-name">
                      {session.title}
                      <Show when={session.host}>{(host) => <span class="host-group" data-testid="leftover-host"> {host()}</span>}</Show>
                    </div>
                    <div class="agent-meta">
                      {leftoverMeta(session)}{' '}
                      <PortChips ports={session.ports} sessionId={session.id} />
                    </div>
                  </div>
                  <button
                    type="button"
                    class="button ghost small danger close-all"
                    data-testid="end-leftovers"
                    disabled={terminal.offline()}
                    onClick={() => terminal.processes.end(session.id, session.processes.map((proc) => proc.pid), session.kind)}
                  >
                    {session.processes.length === 1 ? 'End it' : `End all ${session.processes.length}`}
                  </button>
                </div>
                <ProcessList sessionId={session.id} processes={session.processes} endable kind={session.kind} />
              </li>
            )}
          </For>
        </ul>
        <Show when={hidden() > 0}>
          <button type="button" class="button ghost small list-more" data-testid="left-running-more" aria-expanded={expanded()} onClick={() => setExpanded(!expanded())}>
            {expanded() ? 'Show fewer' : `and ${hidden()} more`}
          </button>
        </Show>
      </section>
    </Show>
  );
}
