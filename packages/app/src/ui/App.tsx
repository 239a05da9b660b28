import { Match, Show, Switch } from 'solid-js';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { DebugHook } from './DebugHook.jsx';
import { Overview } from './Overview.jsx';
import { TerminalPanel } from './TerminalPanel.jsx';

function ConnectionStatus() {
  const terminal = useTerminal();
  const status = () => terminal.connection();
  return (
    <span class="connection" data-testid="connection-status" data-state={status().state} role="status">
      <span class="connection-dot" aria-hidden="true" />
      <Switch>
        <Match when={status().state === 'connected'}>Connected</Match>
        <Match when={status().state === 'connecting'}>Connecting…</Match>
        <Match when={status().state === 'disconnected'}>Reconnecting…</Match>
        <Match when={status().state === 'disposed'}>Closed</Match>
      </Switch>
    </span>
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
          <button type="button" class="button" data-testid="new-terminal" title={terminal.shortcuts['new-terminal']} onClick={() => terminal.newTerminal()}>
            New terminal
          </button>
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
      <Overview />
      <TerminalPanel />
      <Notice />
      <DebugHook />
    </div>
  );
}
