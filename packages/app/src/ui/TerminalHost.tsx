// Places a tab's terminal view in the panel, keeping hidden ones laid out so they keep their size and screen.
import { createEffect, onCleanup, onMount } from 'solid-js';
import { paneBanner, typingIntoAgent } from '../terminal/pane-banner.js';
import { useTerminal } from '../terminal/terminal-context.jsx';

/**
 * Places a tab's xterm.js view in the panel. Inactive panes stay laid out but
 * invisible, so every terminal keeps a real size (xterm.js cannot measure in
 * display:none) and its screen survives tab switches.
 */
export function TerminalHost(props: { id: string; onContextMenu(x: number, y: number): void }) {
  const terminal = useTerminal();
  let container!: HTMLDivElement;
  const active = () => terminal.state.activeId === props.id;
  const tab = () => terminal.state.tabs.find((candidate) => candidate.id === props.id);
  const typing = () => {
    const current = tab();
    return current !== undefined && typingIntoAgent(current, terminal.state.focusedId, terminal.offline());
  };
  // Room for the tab's banner above the terminal, whether or not the tab is in front: switching
  // tabs resizes nothing.
  const bannered = () => {
    const current = tab();
    return current !== undefined && paneBanner(current) !== null;
  };

  onMount(() => {
    let frame = 0;
    const fitSoon = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => terminal.viewFor(props.id)?.fit());
    };
    // Opening xterm.js needs a laid-out element: wait until the panel is shown.
    createEffect(() => {
      if (!terminal.state.panelOpen) return;
      terminal.viewFor(props.id)?.mount(container);
      fitSoon();
    });
    createEffect(() => {
      if (active()) fitSoon();
    });
    const observer = new ResizeObserver(fitSoon);
    observer.observe(container);
    onCleanup(() => {
      observer.disconnect();
      cancelAnimationFrame(frame);
    });
  });

  return (
    <div
      ref={container}
      class="terminal-pane"
      classList={{ active: active(), typing: typing(), bannered: bannered() }}
      role="tabpanel"
      id={`terminal-${props.id}`}
      aria-labelledby={`tab-${props.id}`}
      data-testid="terminal"
      data-session-id={props.id}
      onContextMenu={(event) => {
        event.preventDefault();
        props.onContextMenu(event.clientX, event.clientY);
      }}
    />
  );
}
