// The panel's tab strip: one tab per open session, kept in sight when they overflow.
import { createEffect, createSignal, For, onCleanup, onMount, Show } from 'solid-js';
import { lostNote } from '@ptydeck/contract';
import { agentStyle } from './agent-style.js';
import { RESTORED_NOTE, endedBadly, exitLabel, markedRestored, tabLabel } from '../terminal/tab-label.js';
import { typingIntoAgent } from '../terminal/pane-banner.js';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { sessionStatus } from '../overview/session-status.js';
import { TabOverflowMenu } from './TabOverflowMenu.jsx';
import { PortChips } from './PortChips.jsx';
import { SandboxShield } from './SandboxShield.jsx';
import { sandboxShield } from '../sandbox/sandbox-shield.js';

export function TabBar() {
  const terminal = useTerminal();
  // Grouped by host: this machine's first, then each remote's, each group in the deck's order.
  const tabs = () => groupedByHost(terminal.state.tabs);
  let list!: HTMLDivElement;
  const [overflowing, setOverflowing] = createSignal(false);

  onMount(() => {
    const measure = () => setOverflowing(list.scrollWidth > list.clientWidth + 1);
    const observer = new ResizeObserver(measure);
    observer.observe(list);
    // Tabs come, go and change width (titles, exit codes) without the list itself resizing.
    const mutations = new MutationObserver(measure);
    mutations.observe(list, { childList: true, subtree: true, characterData: true });
    onCleanup(() => {
      observer.disconnect();
      mutations.disconnect();
    });
    // The active tab is always in sight, however it became active.
    createEffect(() => {
      const id = terminal.state.activeId;
      const count = tabs().length;
      if (id === null || count === 0 || !terminal.state.panelOpen) return;
      document.getElementById(`tab-${id}`)?.closest('.tab')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    });
  });

  /** A vertical wheel scrolls the strip sideways: there is no scrollbar to grab. */
  function onWheel(event: WheelEvent) {
    if (event.deltaY === 0 || Math.abs(event.deltaX) > Math.abs(event.deltaY)) return;
    list.scrollLeft += event.deltaY;
    event.preventDefault();
  }

  // Roving focus within the tab list, as the ARIA tabs pattern expects.
  function onKeyDown(event: KeyboardEvent, index: number) {
    const list = tabs();
    let target: number | null = null;
    if (event.key === 'ArrowRight') target = (index + 1) % list.length;
    else if (event.key === 'ArrowLeft') target = (index - 1 + list.length) % list.length;
    else if (event.key === 'Home') target = 0;
    else if (event.key === 'End') target = list.length - 1;
    else if (event.key === 'Delete') {
      event.preventDefault();
      terminal.close(list[index]!.id);
      return;
    }
    if (target === null) return;
    event.preventDefault();
    const id = list[target]!.id;
    terminal.focus(id);
    document.getElementById(`tab-${id}`)?.focus();
  }

  return (
    <div class="tab-strip">
      <div class="tab-list" role="tablist" aria-label="Terminals" data-testid="tab-list" ref={list} onWheel={onWheel}>
        <For each={tabs()}>
          {(tab, index) => {
            const active = () => terminal.state.activeId === tab.id;
            const exited = () => tab.status === 'exited';
            const lost = () => tab.status === 'lost';
            // The shell's own state, as the overview reads it: back at its prompt, a live shell is idle.
            const info = () => terminal.state.sessions.find((session) => session.id === tab.id);
            const shell = () => {
              const session = info();
              return session ? sessionStatus(session, terminal.offline()) : undefined;
            };
            // Offline, typing reaches no one: no claim that the agent sees it.
            const typing = () => typingIntoAgent(tab, terminal.state.focusedId, terminal.offline());
            const shield = () => sandboxShield(info()?.sandbox);
            return (
              <>
                <Show when={tab.host !== undefined && tabs()[index() - 1]?.host !== tab.host}>
                  <span class="host-group" data-testid="tab-host-group" data-host={tab.host} classList={{ reconnecting: terminal.hostState(tab.host!) !== 'connected' }} title={terminal.hostDetail(tab.host!) ?? `Sessions on ${tab.host} (${terminal.hosts().find((host) => host.name === tab.host)?.destination ?? 'not in remotes.json'})`}>
                    {tab.host}
                  </span>
                </Show>
              <div
                class="tab"
                classList={{ active: active(), agent: tab.source === 'agent', sandboxed: shield() !== null, exited: exited(), lost: lost(), typing: typing(), waiting: tab.attention !== null }}
                style={tab.source === 'agent' ? agentStyle(tab.ownerName) : undefined}
              >
                <button
                  type="button"
                  role="tab"
                  id={`tab-${tab.id}`}
                  class="tab-main"
                  aria-selected={active()}
                  aria-controls={`terminal-${tab.id}`}
                  aria-label={tabLabel(tab)}
                  tabIndex={active() ? 0 : -1}
                  title={exited() ? `${tabLabel(tab)} (${exitLabel(tab)})` : lost() ? `${tabLabel(tab)}: ${lostNote(tab.lost)}` : tabLabel(tab)}
                  data-testid="tab"
                  data-session-id={tab.id}
                  data-host={tab.host ?? ''}
                  data-source={tab.source}
                  data-status={tab.status}
                  onClick={() => terminal.focus(tab.id)}
                  onMouseDown={(event) => event.button === 1 && (event.preventDefault(), terminal.close(tab.id))}
                  onKeyDown={(event) => onKeyDown(event, index())}
                >
                  <span
                    class="status-dot"
                    data-testid="tab-status"
                    data-state={shell()?.state}
                    classList={{ running: tab.status === 'running' && !terminal.offline() && shell()?.state !== 'idle', idle: shell()?.state === 'idle', failed: exited() && endedBadly(tab) }}
                    aria-hidden="true"
                  />
                  <Show when={tab.source === 'agent'}>
                    <span class="agent-badge" data-testid="tab-agent-badge" style={agentStyle(tab.ownerName)}>{tab.ownerName ?? 'agent'}</span>
                  </Show>
                  <SandboxShield shield={shield()} testId="tab-sandbox" />
                  <span class="tab-title">{tab.title}</span>
                  <Show when={tab.readOnly}>
                    <span class="read-only-marker" data-testid="tab-read-only" title="Read-only: the agent runs this itself; it takes no input">read-only</span>
                  </Show>
                  <Show when={lost()}>
                    <span class="lost-marker" data-testid="tab-lost" title={lostNote(tab.lost)}>lost</span>
                  </Show>
                  <Show when={markedRestored(tab)}>
                    <span class="restored-marker" data-testid="tab-restored" title={RESTORED_NOTE}>restored</span>
                  </Show>
                  <Show when={tab.attention}>
                    {(attention) => (
                      <span class="needs-input" data-testid="tab-needs-input" data-kind={attention().kind} title={`Waiting for your input: ${attention().prompt.trim()}`}>
                        needs input
                      </span>
                    )}
                  </Show>
                  <Show when={tab.unseen}>
                    <span class="new-dot" data-testid="tab-new" role="img" aria-label="new" title="New: opened while you were elsewhere" />
                  </Show>
                  <Show when={exited()}>
                    <span
                      class="exit-code"
                      classList={{ ok: tab.exitCode === 0, closed: tab.closeRequested }}
                      data-testid="tab-exit-code"
                      data-exit-code={tab.exitCode ?? ''}
                    >
                      {exitLabel(tab)}
                    </span>
                  </Show>
                  {/* Laid out on the active agent tab (the only one whose terminal can have focus), shown
                      only while typing: a tab that changed width when its terminal lost focus, on mouse-down
                      elsewhere, moved the tabs under the pointer. */}
                  <Show when={tab.source === 'agent' && active()}>
                    <span class="typing-marker" classList={{ shown: typing() }} data-testid="tab-typing" title="You are typing into this agent's shell" aria-hidden={!typing()}>
                      <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M2 4h12v8H2zM4 6h1M6 6h1M8 6h1M10 6h1M12 6h1M5 10h6" fill="none" stroke="currentColor" stroke-width="1.2" /></svg>
                    </span>
                  </Show>
                </button>
                <PortChips ports={info()?.ports} sessionId={tab.id} />
                {/* A lost tab never lingers away: there is nothing to pin it against. */}
                <Show when={tab.source === 'agent' && !lost()}>
                  <button
                    type="button"
                    class="tab-action pin"
                    classList={{ pinned: tab.pinned }}
                    aria-pressed={tab.pinned}
                    aria-label={tab.pinned ? `Unpin ${tab.title}` : `Keep ${tab.title} open after it exits`}
                    title={tab.pinned ? 'Pinned: stays after exit' : 'Pin: keep open after exit'}
                    data-testid="tab-pin"
                    onClick={() => terminal.pin(tab.id, !tab.pinned)}
                  >
                    <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M6 2h4l-.5 4 2.5 2v1H4V8l2.5-2zM8 9v5" fill={tab.pinned ? 'currentColor' : 'none'} stroke="currentColor" stroke-width="1.2" stroke-linejoin="round" /></svg>
                  </button>
                </Show>
                <button
                  type="button"
                  class="tab-action close"
                  aria-label={`Close ${tab.title}`}
                  title={exited() ? 'Close tab' : lost() ? 'Close tab (removes its saved output)' : 'Close tab (ends the process)'}
                  data-testid="tab-close"
                  onClick={() => terminal.close(tab.id)}
                >
                  <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 4l8 8M12 4l-8 8" stroke="currentColor" stroke-width="1.4" /></svg>
                </button>
              </div>
              </>
            );
          }}
        </For>
      </div>
      <Show when={overflowing()}>
        <TabOverflowMenu />
      </Show>
    </div>
  );
}

/** Tabs grouped by host, stable within each: this machine's (no host) first, then the remotes by name. */
function groupedByHost<T extends { host?: string }>(tabs: T[]): T[] {
  if (tabs.every((tab) => tab.host === undefined)) return tabs;
  const rank = (tab: T) => (tab.host === undefined ? '' : ` ${tab.host}`);
  return tabs
    .map((tab, index) => ({ tab, index }))
    .sort((a, b) => (rank(a.tab) === rank(b.tab) ? a.index - b.index : rank(a.tab) < rank(b.tab) ? -1 : 1))
    .map(({ tab }) => tab);
}
