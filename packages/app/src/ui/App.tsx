// The panel's root view: the overview, the terminal panel and the chat pane, or why the panel cannot connect.
import { Match, Show, Switch } from 'solid-js';
import type { DisconnectCause } from '../connection/panel-client.js';
import { useChat } from '../chat/chat-context.jsx';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { ChatPane } from './chat/ChatPane.jsx';
import { Overview } from './Overview.jsx';
import { TerminalPanel } from './TerminalPanel.jsx';
import { TestHooks } from './test-hooks.js';
import { TimelineToggle, TimelineView } from './TimelineView.jsx';
import { HostBanners, HostTerminalButtons } from './RemoteHosts.jsx';
import { ReplayOverlay } from './ReplayOverlay.jsx';

/** Reconnect attempts after which "it will be back in a moment" is no longer the likely story. */
const ATTEMPTS_BEFORE_ADVICE = 3;

function causeOf(status: ReturnType<ReturnType<typeof useTerminal>['connection']>): DisconnectCause {
  return status.state === 'connecting' || status.state === 'disconnected' ? status.cause : 'unknown';
}

function ConnectionStatus() {
  const terminal = useTerminal();
  const status = () => terminal.connection();
  const firstAttempt = () => status().state === 'connecting' && (status() as { attempt: number }).attempt === 0;
  return (
    <span class="connection" data-testid="connection-status" data-state={status().state} data-cause={causeOf(status())} role="status">
      <span class="connection-dot" aria-hidden="true" />
      <Switch fallback="Disconnected: reconnecting…">
        <Match when={status().state === 'connected'}>Connected</Match>
        <Match when={causeOf(status()) === 'unauthorized'}>Not signed in</Match>
        <Match when={firstAttempt()}>Connecting…</Match>
        <Match when={status().state === 'disposed'}>Closed</Match>
      </Switch>
    </span>
  );
}

/**
 * Says what is wrong and what to do when the panel is not connected: a page
 * opened without its one-time link, or a server that stopped or moved.
 */
function ConnectionProblem() {
  const terminal = useTerminal();
  const status = () => terminal.connection();
  const attempt = () => {
    const current = status();
    return current.state === 'connecting' || current.state === 'disconnected' ? current.attempt : 0;
  };
  const unauthorized = () => causeOf(status()) === 'unauthorized';
  const lost = () => status().state === 'disconnected' || (status().state === 'connecting' && attempt() > 0);
  const advise = () => attempt() >= ATTEMPTS_BEFORE_ADVICE;
  return (
    <Show when={unauthorized() || lost()}>
      <div class="connection-problem" role="alert" data-testid="connection-problem" data-cause={causeOf(status())}>
        <Show
          when={unauthorized()}
          fallback={
            <>
              <strong>Disconnected from ptydeck.</strong> Terminals are read-only until it is back; nothing you type is sent.
              <Show when={advise()}>
                <span data-testid="connection-advice">
                  {' '}ptydeck at <code>{window.location.host}</code> is not answering.{' '}
                  <Show when={terminal.runsIn === 'browser'} fallback="Restart ptydeck.">
                    If it was restarted it may be on another port: run <code>ptydeck url</code> and open the link it prints.
                  </Show>
                </span>
              </Show>
            </>
          }
        >
          <strong>This page is not signed in to ptydeck.</strong> Run <code>ptydeck url</code> in a terminal and open the
          link it prints (each link works once).
        </Show>
      </div>
    </Show>
  );
}

function Notice() {
  const terminal = useTerminal();
  return (
    <Show when={terminal.state.notice}>
      {(message) => (
        <div class="notice" role="alert" data-testid="notice">
          <span>{message()}</span>
          <button type="button" class="icon-button" aria-label="Dismiss" onClick={() => terminal.dismissNotice()}>✕</button>
        </div>
      )}
    </Show>
  );
}

function ChatToggle() {
  const chat = useChat();
  const terminal = useTerminal();
  function toggle() {
    chat.togglePane();
    // Hiding the chats leaves the keyboard on this button: give it back to the terminal in front.
    if (!chat.paneOpen()) terminal.focusActive();
  }
  const asking = () => chat.state.chats.filter((item) => item.questions.length > 0).length;
  return (
    <button type="button" class="button ghost" data-testid="toggle-chat" aria-pressed={chat.paneOpen()} onClick={toggle}>
      {chat.paneOpen() ? 'Hide chats' : 'Chats'}
      <Show when={chat.state.chats.length > 0}>
        <span class="count" classList={{ attention: asking() > 0 }} title={asking() > 0 ? `${asking()} waiting for your answer` : undefined}>
          {chat.state.chats.length}
        </span>
      </Show>
    </button>
  );
}

export function App() {
  const terminal = useTerminal();
  const unseen = () => terminal.state.tabs.filter((tab) => tab.unseen).length;
  return (
    <div class="app" data-testid="app">
      <header class="topbar">
        <div class="brand">
          <svg viewBox="0 0 24 24" aria-hidden="true"><rect x="2.5" y="4" width="19" height="16" rx="3" fill="none" stroke="currentColor" stroke-width="1.6" /><path d="M6.5 9.5l3 2.5-3 2.5M11.5 15h5" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round" /></svg>
          <span>ptydeck</span>
        </div>
        <ConnectionStatus />
        <div class="topbar-actions">
          <TimelineToggle />
          <ChatToggle />
          <button type="button" class="button" data-testid="new-terminal" title={terminal.shortcuts['new-terminal']} onClick={() => terminal.newTerminal()}>
            New terminal
          </button>
          <HostTerminalButtons />
          <button
            type="button"
            class="button ghost"
            data-testid="toggle-panel"
            aria-pressed={terminal.state.panelOpen}
            title={terminal.shortcuts['toggle-panel']}
            onClick={() => terminal.togglePanel()}
          >
            {terminal.state.panelOpen ? 'Hide panel' : 'Show panel'}
            <Show when={terminal.state.tabs.length > 0}>
              <span class="count" classList={{ fresh: unseen() > 0 }} data-testid="tab-count" data-unseen={unseen()}
                title={unseen() > 0 ? `${unseen()} new` : undefined}>
                {terminal.state.tabs.length}
              </span>
            </Show>
          </button>
        </div>
      </header>
      <ConnectionProblem />
      <HostBanners />
      <div class="main">
        <div class="workspace">
          <TimelineView />
          <Overview />
          <TerminalPanel />
        </div>
        <ChatPane />
      </div>
      <ReplayOverlay />
      <Notice />
      <TestHooks />
    </div>
  );
}
