// The terminal panel docked at the bottom, with its remembered height and panel shortcuts.
import { createSignal, For, Match, onCleanup, onMount, Show, Switch } from 'solid-js';
import { lostNote } from '@ptydeck/contract';
import type { Tab } from '../terminal/deck-state.js';
import { paneBanner, typingIntoAgent } from '../terminal/pane-banner.js';
import { matchShortcut, type ShortcutCommand } from '../terminal/shortcuts.js';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { SearchBar } from './SearchBar.jsx';
import { CommandMenu } from './CommandMenu.jsx';
import { arrowResizeStep, followDrag } from './resize-edge.js';
import { TabBar } from './TabBar.jsx';
import { TerminalContextMenu } from './TerminalContextMenu.jsx';
import { TerminalHost } from './TerminalHost.jsx';

const HEIGHT_KEY = 'ptydeck.panelHeight';
const MIN_HEIGHT = 120;
/** Room kept above the panel so the overview never vanishes entirely. */
const MIN_ABOVE = 96;
/** The app's top bar (styles.css, .topbar). */
const TOP_BAR_HEIGHT = 48;

function clampHeight(height: number): number {
  return Math.round(Math.max(MIN_HEIGHT, Math.min(height, window.innerHeight - MIN_ABOVE)));
}

/**
 * Before the developer sizes it, the panel takes 45% of the window, and in a
 * small window (800×600) enough for about 20 rows: there the overview gives
 * way (it scrolls) rather than leave the terminal a dozen rows.
 */
const DEFAULT_MIN_HEIGHT = 400;
/** The overview keeps this much at the default height; dragging may take it down to MIN_ABOVE. */
const DEFAULT_ABOVE = 120;

function defaultHeight(): number {
  const room = window.innerHeight - TOP_BAR_HEIGHT - DEFAULT_ABOVE;
  return Math.max(Math.round(window.innerHeight * 0.45), Math.min(DEFAULT_MIN_HEIGHT, room));
}

function storedHeight(): number {
  const stored = Number(localStorage.getItem(HEIGHT_KEY));
  return clampHeight(Number.isFinite(stored) && stored > 0 ? stored : defaultHeight());
}

/** The terminal panel docked at the bottom: tabs, terminals, a draggable top edge, the panel shortcuts. */
export function TerminalPanel() {
  const terminal = useTerminal();
  const [height, setHeight] = createSignal(storedHeight());
  const [searching, setSearching] = createSignal(false);
  const [menu, setMenu] = createSignal<{ id: string; x: number; y: number } | null>(null);

  function run(command: ShortcutCommand) {
    switch (command) {
      case 'toggle-panel': return terminal.togglePanel();
      case 'new-terminal': return terminal.newTerminal();
      case 'next-tab': return terminal.next();
      case 'previous-tab': return terminal.previous();
      case 'close-tab': return terminal.close();
      case 'find': return terminal.state.tabs.length > 0 && setSearching(true);
    }
  }

  onMount(() => {
    // Capture phase: runs before xterm.js sees the key (which also declines it, see TerminalView).
    const onKey = (event: KeyboardEvent) => {
      const command = matchShortcut(event);
      if (command === null) return;
      event.preventDefault();
      event.stopPropagation();
      if (!event.repeat || command === 'next-tab' || command === 'previous-tab') run(command);
    };
    const onWindowResize = () => setHeight((current) => clampHeight(current));
    window.addEventListener('keydown', onKey, true);
    window.addEventListener('resize', onWindowResize);
    onCleanup(() => {
      window.removeEventListener('keydown', onKey, true);
      window.removeEventListener('resize', onWindowResize);
    });
  });

  function startDrag(event: PointerEvent) {
    followDrag(
      event,
      (move) => setHeight(clampHeight(window.innerHeight - move.clientY)),
      () => localStorage.setItem(HEIGHT_KEY, String(height())),
    );
  }

  function resizeByKey(event: KeyboardEvent) {
    const step = arrowResizeStep(event, 'ArrowUp', 'ArrowDown');
    if (step === null) return;
    setHeight((current) => clampHeight(current + step));
    localStorage.setItem(HEIGHT_KEY, String(height()));
  }

  return (
    <section
      class="panel"
      aria-label="Terminal panel"
      data-testid="terminal-panel"
      data-open={terminal.state.panelOpen ? 'true' : 'false'}
      data-offline={terminal.offline() ? 'true' : 'false'}
      hidden={!terminal.state.panelOpen}
      style={{ height: `${height()}px` }}
    >
      <div
        class="panel-resize"
        role="separator"
        aria-orientation="horizontal"
        aria-label="Resize terminal panel"
        aria-valuenow={height()}
        aria-valuemin={MIN_HEIGHT}
        tabIndex={0}
        data-testid="panel-resize-handle"
        onPointerDown={startDrag}
        onKeyDown={resizeByKey}
      />
      <div class="panel-header">
        <TabBar />
        <div class="panel-actions">
          <button type="button" class="icon-button" aria-label="New terminal" title={`New terminal (${terminal.shortcuts['new-terminal']})`} data-testid="panel-new-terminal" onClick={() => terminal.newTerminal()}>
            <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M8 3v10M3 8h10" stroke="currentColor" stroke-width="1.5" /></svg>
          </button>
          <button type="button" class="icon-button" aria-label="Find in terminal" title={`Find (${terminal.shortcuts.find})`} aria-pressed={searching()} onClick={() => setSearching(!searching())}>
            <svg viewBox="0 0 16 16" aria-hidden="true"><circle cx="7" cy="7" r="4" fill="none" stroke="currentColor" stroke-width="1.4" /><path d="M10 10l3.5 3.5" stroke="currentColor" stroke-width="1.4" /></svg>
          </button>
          <button type="button" class="icon-button" aria-label="Hide terminal panel" title={`Hide panel (${terminal.shortcuts['toggle-panel']})`} data-testid="panel-hide" onClick={() => terminal.closePanel()}>
            <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 6l4 4 4-4" fill="none" stroke="currentColor" stroke-width="1.5" /></svg>
          </button>
        </div>
      </div>
      <Show when={searching()}>
        <SearchBar onClose={() => setSearching(false)} />
      </Show>
      <div class="panel-body">
        <For each={terminal.state.tabs.map((tab) => tab.id)}>
          {(id) => <TerminalHost id={id} onContextMenu={(x, y) => setMenu({ id, x, y })} />}
        </For>
        <Show when={terminal.state.tabs.length === 0 && terminal.state.pendingCreates.length > 0}>
          <div class="panel-placeholder" data-testid="terminal-starting">Starting your shell…</div>
        </Show>
        <Show when={terminal.offline() && terminal.state.tabs.length > 0}>
          <div class="offline-overlay" data-testid="panel-offline" role="status">
            Disconnected: these terminals are read-only until ptydeck is back.
          </div>
        </Show>
        <Show when={terminal.activeTab()}>{(tab) => <TabBanner tab={tab()} />}</Show>
        <Show when={menu()}>
          {(at) => <TerminalContextMenu id={at().id} x={at().x} y={at().y} onClose={() => setMenu(null)} />}
        </Show>
        <Show when={terminal.commandMenu()} keyed>
          {(at) => <CommandMenu at={at} />}
        </Show>
      </div>
    </section>
  );
}

/**
 * The active tab's one banner, in the strip its pane leaves free above the
 * terminal (see paneBanner), so it never covers output. An agent's shell says
 * whose it is, louder while the developer types into it.
 */
function TabBanner(props: { tab: Tab }) {
  const terminal = useTerminal();
  const owner = () => props.tab.ownerName ?? 'an agent';
  const typing = () => typingIntoAgent(props.tab, terminal.state.focusedId, terminal.offline());
  return (
    <Switch>
      <Match when={paneBanner(props.tab) === 'lost'}>
        <div class="pane-banner lost" data-testid="lost-banner" role="status" title={`${lostNote(props.tab.lost)}. Its process is gone.`}>
          <strong>{lostNote(props.tab.lost)}.</strong> Its process is gone: what you type goes nowhere; closing the tab removes it.
        </div>
      </Match>
      <Match when={paneBanner(props.tab) === 'read-only'}>
        <div class="pane-banner" data-testid="read-only-banner" role="status">
          Read-only: <strong>{owner()}</strong> runs this itself; what you type goes nowhere.
        </div>
      </Match>
      <Match when={paneBanner(props.tab) === 'agent' && typing()}>
        <div class="pane-banner typing" data-testid="typing-banner" role="status">
          You are typing into <strong>{owner()}</strong>'s shell. The agent sees what you type.
        </div>
      </Match>
      <Match when={paneBanner(props.tab) === 'agent'}>
        <div class="pane-banner" data-testid="agent-banner">
          {/* While it lingers after its exit, nothing reads keys: "the agent sees what you type" would be untrue. */}
          <Show when={props.tab.status === 'running'} fallback={<><strong>{owner()}</strong>'s shell has exited: what you type goes nowhere.</>}>
            <strong>{owner()}</strong>'s shell: the agent sees what you type here.
          </Show>
        </div>
      </Match>
    </Switch>
  );
}
