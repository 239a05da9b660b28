// The overview: what waits for the developer, each agent's shells and chats, and how to connect an agent.
import { lostNote, type SessionInfo } from '@ptydeck/contract';
import { For, Show, type JSX } from 'solid-js';
import { agentSetups } from '../overview/agent-setup.js';
import { groupSessions, type DisconnectedAgent } from '../overview/session-groups.js';
import { sessionStatus, type SessionStatus } from '../overview/session-status.js';
import { agentInitials } from '../agents/agent-identity.js';
import { useChat } from '../chat/chat-context.jsx';
import { CHAT_STATE_LABEL, chatName } from './chat/chat-labels.js';
import { waitingFor } from '../terminal/deck-reducer.js';
import { RESTORED_NOTE, markedRestored } from '../terminal/tab-label.js';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { CopySnippet } from './CopySnippet.jsx';
import { agentStyle } from './agent-style.js';
import { LeftRunning } from './LeftRunning.jsx';
import { PortChips } from './PortChips.jsx';
import { SandboxShield } from './SandboxShield.jsx';
import { agentShields, sandboxShield } from '../sandbox/sandbox-shield.js';
import { SessionProcesses } from './ProcessList.jsx';
import { shownText } from '../lib/shown-text.js';

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

function SessionRow(props: { session: SessionInfo }) {
  const terminal = useTerminal();
  const status = () => sessionStatus(props.session, terminal.offline());
  const is = (state: SessionStatus['state']) => status().state === state;
  const shield = () => sandboxShield(props.session.sandbox);
  return (
    <li data-testid="overview-session" data-session-id={props.session.id} data-host={props.session.host ?? ''} data-status={props.session.status} data-state={status().state}>
      <button type="button" class="session-row" classList={{ sandboxed: shield() !== null }} onClick={() => terminal.open(props.session.id)} title={`${shownText([props.session.command, ...props.session.args].join(' '))} in ${shownText(props.session.cwd)}${props.session.status === 'lost' ? `: ${lostNote(props.session.lost)}` : ''}`}>
        <span
          class="status-dot"
          classList={{ running: is('running') || is('needs-input'), idle: is('idle'), failed: is('exited') && status().failed }}
          aria-hidden="true"
        />
        <span class="session-title">{props.session.title}</span>
        <SandboxShield shield={shield()} testId="session-sandbox" />
        <Show when={props.session.host}>{(host) => <span class="host-group" data-testid="overview-session-host">{host()}</span>}</Show>
        {/* The agent's to choose (terminal_create's cwd, command and args): drawn as the Timeline draws them. */}
        <span class="session-cwd">{shownText(props.session.cwd)}</span>
        <span class="session-status" classList={{ exited: is('exited') || is('unknown'), idle: is('idle'), waiting: is('needs-input'), lost: is('lost') }} data-testid="overview-session-status">
          {status().label}
          <Show when={status().lastExit}>
            {(lastExit) => (
              <>
                {' · '}
                <span class="last-exit" classList={{ failed: status().failed }}>{lastExit()}</span>
              </>
            )}
          </Show>
          <Show when={markedRestored(props.session)}>
            {' · '}
            <span class="restored-marker" data-testid="overview-session-restored" title={RESTORED_NOTE}>restored</span>
          </Show>
        </span>
      </button>
      <Show when={props.session.status === 'running' && !props.session.readOnly}>
        <div class="session-extras">
          <PortChips ports={props.session.ports} sessionId={props.session.id} />
          <SessionProcesses sessionId={props.session.id} />
        </div>
      </Show>
    </li>
  );
}

/** Sessions whose program waits for the developer, longest waiting first: the first thing the overview shows. */
function WaitingForInput() {
  const terminal = useTerminal();
  const waiting = () =>
    terminal.state.sessions
      .flatMap((session) => {
        const attention = waitingFor(session);
        return attention === null ? [] : [{ session, attention }];
      })
      .sort((a, b) => a.attention.since - b.attention.since);
  return (
    <Show when={waiting().length > 0}>
      <section class="overview-section" aria-labelledby="waiting-heading" data-testid="waiting">
        <div class="section-head">
          <h2 id="waiting-heading">Waiting for your input</h2>
          <span class="count attention">{waiting().length}</span>
        </div>
        <ul class="waiting-list">
          <For each={waiting()}>
            {(entry) => (
              <li data-testid="waiting-session" data-session-id={entry.session.id}>
                <button
                  type="button"
                  class="waiting-row"
                  onClick={() => terminal.open(entry.session.id)}
                  aria-label={`${entry.session.ownerName ?? 'agent'}: ${entry.session.title}, waiting for input: ${entry.attention.prompt.trim()}`}
                >
                  <span class="agent-badge" style={agentStyle(entry.session.ownerName)}>{entry.session.ownerName ?? 'agent'}</span>
                  <span class="session-title">{entry.session.title}</span>
                  <code class="waiting-prompt" data-testid="waiting-prompt">{entry.attention.prompt.trim()}</code>
                  <span class="waiting-since">since {timeFormat.format(entry.attention.since)}</span>
                </button>
              </li>
            )}
          </For>
        </ul>
      </section>
    </Show>
  );
}

/**
 * The developer's say over desktop notifications. In a browser the permission
 * is asked for here, from their click on the first box, and never on load.
 */
function NotificationControls() {
  const terminal = useTerminal();
  const notifications = terminal.notifications;
  const usable = () => notifications.permission() === 'granted';
  const onInput = () => notifications.settings().input && usable();
  const blocked = () => notifications.permission() === 'denied' || notifications.permission() === 'unsupported';
  async function toggleInput(event: Event & { currentTarget: HTMLInputElement }) {
    const box = event.currentTarget;
    try {
      if (box.checked) await notifications.enableInput();
      else notifications.set({ input: false });
    } finally {
      // The box shows what holds, not what was clicked: a refused permission leaves it off.
      box.checked = onInput();
    }
  }
  return (
    <section class="overview-section" aria-labelledby="notify-heading" data-testid="notification-settings">
      <div class="section-head">
        <h2 id="notify-heading">Notifications</h2>
      </div>
      <div class="toggles">
        <label class="toggle">
          <input type="checkbox" data-testid="notify-input" checked={onInput()} disabled={blocked()} onChange={(event) => void toggleInput(event)} />
          Notify me when an agent needs input
        </label>
        <label class="toggle">
          <input
            type="checkbox"
            data-testid="notify-failures"
            checked={notifications.settings().failures}
            disabled={!onInput()}
            onChange={(event) => notifications.set({ failures: event.currentTarget.checked })}
          />
          Also when an agent's shell exits with an error
        </label>
      </div>
      <p class="notify-hint" data-testid="notify-hint">
        <Show
          when={blocked()}
          fallback="Shown only while this window is not in front; clicking one brings you to the agent's shell or chat."
        >
          {notifications.permission() === 'denied'
            ? 'This browser blocks notifications from this page: allow them in its site settings.'
            : 'This browser cannot show notifications from this page.'}
        </Show>
      </p>
    </section>
  );
}

/** Closes `sessions` together, as their tabs' close would each; nothing to send while not connected. */
function CloseSessionsButton(props: { testId: string; sessions: SessionInfo[]; why: string; children: JSX.Element }) {
  const terminal = useTerminal();
  return (
    <button
      type="button"
      class="button ghost small close-all"
      data-testid={props.testId}
      disabled={terminal.offline()}
      title={terminal.offline() ? 'Not connected to ptydeck' : props.why}
      onClick={() => terminal.closeSessions(props.sessions.map((session) => session.id))}
    >
      {props.children}
    </button>
  );
}

/** An agent whose connection ended: its shells stay for the developer to read, and one button ends them all. */
function DisconnectedAgentCard(props: { agent: DisconnectedAgent }) {
  const count = () => props.agent.running.length;
  return (
    <li class="agent-card disconnected" data-testid="disconnected-agent" data-agent-id={props.agent.owner} data-connected="false">
      <div class="agent-head">
        <span class="agent-avatar" aria-hidden="true" style={agentStyle(props.agent.name)}>{agentInitials(props.agent.name)}</span>
        <div>
          <div class="agent-name">{props.agent.name}</div>
          <div class="agent-meta" data-testid="disconnected-agent-status">
            disconnected · {count() === 0 ? 'no shell still running' : `${count()} ${count() === 1 ? 'shell' : 'shells'} still running`}
          </div>
        </div>
        <Show when={count() > 0}>
          <CloseSessionsButton testId="close-agent-sessions" sessions={props.agent.running} why="Ends every shell this agent left running">
            {count() === 1 ? 'Close its shell' : `Close all ${count()} shells`}
          </CloseSessionsButton>
        </Show>
      </div>
      <ul class="session-list">
        <For each={props.agent.sessions}>{(session) => <SessionRow session={session} />}</For>
      </ul>
    </li>
  );
}

/**
 * Sessions an earlier host ran when it was killed, crashed or upgraded: their
 * output as last saved, read-only, until removed (here, or a tab's close).
 */
function LostSessions(props: { sessions: SessionInfo[] }) {
  const count = () => props.sessions.length;
  return (
    <section class="overview-section" aria-labelledby="lost-heading" data-testid="lost-sessions">
      <div class="section-head">
        <h2 id="lost-heading">Lost when the host restarted</h2>
        <span class="count">{count()}</span>
        <CloseSessionsButton testId="remove-lost-sessions" sessions={props.sessions} why="Removes these sessions and the output saved of them">
          {count() === 1 ? 'Remove it' : `Remove all ${count()}`}
        </CloseSessionsButton>
      </div>
      <p class="hint">Their processes are gone; what they printed is kept as it was last saved. Open one to read it.</p>
      <ul class="session-list">
        <For each={props.sessions}>{(session) => <SessionRow session={session} />}</For>
      </ul>
    </section>
  );
}

/** The chats' agents (ACP, hosted by ptydeck) with their shells; each card opens its chat. */
function ChatAgents(props: { sessionsOf(owner: string): SessionInfo[] }) {
  const chat = useChat();
  return (
    <Show when={chat.state.chats.length > 0}>
      <section class="overview-section" aria-labelledby="chat-agents-heading">
        <div class="section-head">
          <h2 id="chat-agents-heading">Agents in chats</h2>
          <span class="count">{chat.state.chats.length}</span>
        </div>
        <ul class="agent-list">
          <For each={chat.state.chats}>
            {(item) => (
              <li class="agent-card" data-testid="chat-agent" data-chat-id={item.info.id}>
                <div class="agent-head">
                  <span class="agent-avatar" aria-hidden="true" style={agentStyle(item.info.agentName)}>{agentInitials(item.info.agentName)}</span>
                  <div>
                    <div class="agent-name">{chatName(item, chat.state.chats)}</div>
                    <div class="agent-meta">chat · {CHAT_STATE_LABEL[item.info.state]} · started {timeFormat.format(item.info.createdAt)}</div>
                  </div>
                  <button
                    type="button"
                    class="button ghost small close-all"
                    onClick={() => {
                      chat.select(item.info.id);
                      chat.setPaneOpen(true);
                    }}
                  >
                    Open chat
                  </button>
                </div>
                <Show when={props.sessionsOf(item.info.owner).length > 0} fallback={<p class="empty small">No open shells.</p>}>
                  <ul class="session-list">
                    <For each={props.sessionsOf(item.info.owner)}>{(session) => <SessionRow session={session} />}</For>
                  </ul>
                </Show>
              </li>
            )}
          </For>
        </ul>
      </section>
    </Show>
  );
}

/** Above the panel: who is connected, what they are running, and how to connect another agent. */
export function Overview() {
  const terminal = useTerminal();
  const chat = useChat();
  const groups = () =>
    groupSessions(
      terminal.state.sessions,
      terminal.state.agents,
      chat.state.chats.map((item) => item.info.owner),
    );
  const sessionsOf = (owner: string) => groups().byAgent.get(owner) ?? [];

  return (
    <main class="overview" data-testid="overview">
      <WaitingForInput />
      <LeftRunning />
      <section class="overview-section" aria-labelledby="agents-heading">
        <div class="section-head">
          <h2 id="agents-heading">{!terminal.offline() ? 'Connected agents' : terminal.state.instance !== null ? 'Agents (last known)' : 'Agents'}</h2>
          <span class="count" data-testid="agent-count">{groups().agents.length}</span>
        </div>
        <Show
          when={groups().agents.length > 0}
          fallback={
            <p class="empty" data-testid="no-agents">
              <Show when={!terminal.offline()} fallback="Not known while this page is not connected to ptydeck.">
                No agent is connected. Add ptydeck to your agent below; every shell it opens appears here as a live tab.
              </Show>
            </p>
          }
        >
          <ul class="agent-list">
            <For each={groups().agents}>
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
                      <div class="agent-shields">
                        <For each={agentShields(sessionsOf(agent.id).map((session) => session.sandbox))}>{(shield) => <SandboxShield shield={shield} testId="agent-sandbox" />}</For>
                      </div>
                    </div>
                  </div>
                  <Show when={sessionsOf(agent.id).length > 0} fallback={<p class="empty small">No open shells.</p>}>
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

      <ChatAgents sessionsOf={(owner) => groups().byChat.get(owner) ?? []} />

      <Show when={groups().disconnected.length > 0}>
        <section class="overview-section" aria-labelledby="disconnected-heading">
          <div class="section-head">
            <h2 id="disconnected-heading">Disconnected agents</h2>
            <span class="count">{groups().disconnected.length}</span>
          </div>
          <ul class="agent-list">
            <For each={groups().disconnected}>{(agent) => <DisconnectedAgentCard agent={agent} />}</For>
          </ul>
        </section>
      </Show>

      <Show when={groups().lost.length > 0}>
        <LostSessions sessions={groups().lost} />
      </Show>

      <Show when={groups().user.length > 0}>
        <section class="overview-section" aria-labelledby="sessions-heading">
          <div class="section-head">
            <h2 id="sessions-heading">Your terminals</h2>
            <span class="count">{groups().user.length}</span>
          </div>
          <ul class="session-list">
            <For each={groups().user}>{(session) => <SessionRow session={session} />}</For>
          </ul>
        </section>
      </Show>

      <NotificationControls />

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
