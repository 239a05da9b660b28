// A list of every tab, to reach one scrolled out of the tab strip when the tabs do not fit.
import { createSignal, For, onCleanup, Show } from 'solid-js';
import { exitLabel, markedRestored, tabLabel } from '../terminal/tab-label.js';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { agentStyle } from './agent-style.js';

/** When the tabs do not fit: a list of every tab, to reach one that is scrolled out of sight. */
export function TabOverflowMenu() {
  const terminal = useTerminal();
  const [open, setOpen] = createSignal(false);
  let root!: HTMLDivElement;

  const onPointerDown = (event: PointerEvent) => {
    if (!root.contains(event.target as Node)) setOpen(false);
  };
  window.addEventListener('pointerdown', onPointerDown, true);
  onCleanup(() => window.removeEventListener('pointerdown', onPointerDown, true));

  function pick(id: string) {
    setOpen(false);
    terminal.focus(id);
  }

  return (
    <div class="tab-overflow" ref={root} onKeyDown={(event) => event.key === 'Escape' && setOpen(false)}>
      <button
        type="button"
        class="icon-button"
        aria-haspopup="menu"
        aria-expanded={open()}
        aria-label={`All terminals (${terminal.state.tabs.length})`}
        title="All terminals"
        data-testid="tab-overflow"
        onClick={() => setOpen(!open())}
      >
        <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 5h10M3 8h10M3 11h10" stroke="currentColor" stroke-width="1.4" /></svg>
        <span class="count">{terminal.state.tabs.length}</span>
      </button>
      <Show when={open()}>
        <div class="tab-overflow-menu" role="menu" aria-label="All terminals" data-testid="tab-overflow-menu">
          <For each={terminal.state.tabs}>
            {(tab) => (
              <button
                type="button"
                role="menuitem"
                class="tab-overflow-item"
                classList={{ active: terminal.state.activeId === tab.id }}
                data-session-id={tab.id}
                aria-label={tabLabel(tab)}
                onClick={() => pick(tab.id)}
              >
                <span class="tab-overflow-label">{tab.title}</span>
                <Show when={tab.source === 'agent'}>
                  <span class="agent-badge" style={agentStyle(tab.ownerName)}>{tab.ownerName ?? 'agent'}</span>
                </Show>
                <Show when={tab.status === 'exited'}><span class="tab-overflow-exit">{exitLabel(tab)}</span></Show>
                <Show when={tab.status === 'lost'}><span class="tab-overflow-exit">lost</span></Show>
                <Show when={markedRestored(tab)}><span class="tab-overflow-exit">restored</span></Show>
                <Show when={tab.attention}><span class="needs-input">needs input</span></Show>
                <Show when={tab.unseen}><span class="new-mark">new</span></Show>
              </button>
            )}
          </For>
        </div>
      </Show>
    </div>
  );
}
