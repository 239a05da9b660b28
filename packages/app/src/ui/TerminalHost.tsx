// Places a tab's terminal view in the panel, keeping hidden ones laid out so they keep their size and screen.
import { createEffect, onCleanup, onMount } from 'solid-js';
import { useTerminal } from '../terminal/terminal-context.jsx';

/**
 * Places a tab's xterm.js view in the panel. Inactive panes stay laid out but
 * invisible, so every terminal keeps a real size (xterm.js cannot measure in
 * display:none) and its screen survives tab switches.
 */
export function TerminalHost(props: { id: string }) {
  const terminal = useTerminal();
  let container!: HTMLDivElement;
  const active = () => terminal.state.activeId === props.id;
  const typing = () =>
    terminal.state.focusedId === props.id && terminal.activeTab()?.source === 'agent' && !terminal.activeTab()?.readOnly && !terminal.offline();

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
      classList={{ active: active(), typing: typing() }}
      role="tabpanel"
      id={`terminal-${props.id}`}
      aria-labelledby={`tab-${props.id}`}
      data-testid="terminal"
      data-session-id={props.id}
    />
  );
}
