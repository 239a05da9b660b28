import type { SessionInfo } from '@ptydeck/contract';
import { For, Show } from 'solid-js';
import { agentSetups } from '../overview/agent-setup.js';
import { agentInitials } from '../agents/agent-identity.js';
import { endedBadly, exitLabel } from '../terminal/tab-label.js';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { CopySnippet } from './CopySnippet.jsx';
import { agentStyle } from './agent-style.js';

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

function SessionRow(props: { session: SessionInfo }) {
  const terminal = useTerminal();
  const exited = () => props.session.status === 'exited';
  // While disconnected, a running session's state is what it was, not what it is.
  const running = () => !exited() && !terminal.offline();
  return (
    <li data-testid="overview-session" data-session-id={props.session.id} data-status={props.session.status}>
      <button type="button" class="session-row" onClick={() => terminal.open(props.session.id)} title={`${props.session.command} ${props.session.args.join(' ')} in ${props.session.cwd}`}>
        <span class="status-dot" classList={{ running: running(), failed: exited() && endedBadly(props.session) }} aria-hidden="true" />
        <span class="session-title">{props.session.title}</span>
        <span class="session-cwd">{props.session.cwd}</span>
        <span class="session-status" classList={{ exited: exited() || !running() }} data-testid="overview-session-status">
          {exited() ? exitLabel(props.session) : running() ? 'running' : 'unknown'}
        </span>
      </button>
    </li>
  );
}

/** Above the panel: who is connected, what they are running, and how to connect another agent. */
export function Overview() {
  const terminal = useTerminal();
  const sessionsOf = (owner: string) => terminal.state.sessions.filter((session) => session.source === 'agent' && session.owner === owner);
  const agentIds = () => new Set(terminal.state.agents.map((agent) => agent.id));
  // User terminals, and sessions of agents that have since disconnected (their shells live on).
  const otherSessions = () => terminal.state.sessions.filter((session) => session.source === 'user' || !agentIds().has(session.owner ?? ''));

  return (
    <main class="overview" data-testid="overview">
      <section class="overview-section" aria-labelledby="agents-heading">
        <div class="section-head">
          <h2 id="agents-heading">{!terminal.offline() ? 'Connected agents' : terminal.state.instance !== null ? 'Agents (last known)' : 'Agents'}</h2>
          <span class="count" data-testid="agent-count">{terminal.state.agents.length}</span>
        </div>
        <Show
          when={terminal.state.agents.length > 0}
          fallback={
            <p class="empty" data-testid="no-agents">
              <Show when={!terminal.offline()} fallback="Not known while this page is not connected to ptydeck.">
                No agent is connected. Add ptydeck to your agent below; every shell it opens appears here as a live tab.
              </Show>
            </p>
          }
        >
          <ul class="agent-list">
            <For each={terminal.state.agents}>
              {(agent) => (
                <li class="agent-card" classList={{ stale: terminal.offline() }} data-testid="agent" data-agent-id={agent.id} data-connected={terminal.offline() ? 'unknown' : 'true'}>
                  <div class="agent-head">
                    <span class="agent-avatar" aria-hidden="true" data-testid="agent-avatar" style={agentStyle(agent.name)}>{agentInitials(agent.name)}</span>
                    <div>
                      <div class="agent-name">
                        {agent.name}
                        <Show when={agent.version}><span class="agent-version">v{agent.version}</span></Show>
                      </div>
                      <div class="agent-meta">
                        {agent.transport === 'http' ? 'HTTP' : 'stdio'} ·{' '}
                        {terminal.offline() ? 'unknown: ptydeck is not connected' : `connected ${timeFormat.format(agent.connectedAt)}`}
                      </div>
                    </div>
                  </div>
                  <Show when={sessionsOf(agent.id).length > 0} fallback={<p class="empty small">No shells yet.</p>}>
                    <ul class="session-list">
                      <For each={sessionsOf(agent.id)}>{(session) => <SessionRow session={session} />}</For>
                    </ul>
                  </Show>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </section>

      <Show when={otherSessions().length > 0}>
        <section class="overview-section" aria-labelledby="sessions-heading">
          <div class="section-head">
            <h2 id="sessions-heading">Other sessions</h2>
            <span class="count">{otherSessions().length}</span>
          </div>
          <ul class="session-list">
            <For each={otherSessions()}>{(session) => <SessionRow session={session} />}</For>
          </ul>
        </section>
      </Show>

      <section class="overview-section" aria-labelledby="connect-heading">
        <div class="section-head">
          <h2 id="connect-heading">Connect an agent</h2>
        </div>
        <p class="hint">
          ptydeck speaks MCP. Give your agent the <code>ptydeck</code> server and its shells open here, live, beside yours.
          Open your own terminal with <kbd>{terminal.shortcuts['new-terminal']}</kbd>; toggle the panel with <kbd>{terminal.shortcuts['toggle-panel']}</kbd>;
          switch tabs with <kbd>{terminal.shortcuts['next-tab']}</kbd> / <kbd>{terminal.shortcuts['previous-tab']}</kbd>; close one with <kbd>{terminal.shortcuts['close-tab']}</kbd>.
        </p>
        <div class="setup-grid">
          <For each={agentSetups(terminal.mcpLaunch() ?? undefined)}>{(setup) => <CopySnippet setup={setup} />}</For>
        </div>
      </section>
    </main>
  );
}
