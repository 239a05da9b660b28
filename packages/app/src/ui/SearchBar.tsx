// Find in the active terminal's scrollback, with xterm.js's search addon.
import { createSignal, onMount } from 'solid-js';
import { useTerminal } from '../terminal/terminal-context.jsx';

/** Find in the active terminal's scrollback (xterm.js search addon). */
export function SearchBar(props: { onClose: () => void }) {
  const terminal = useTerminal();
  const [query, setQuery] = createSignal('');
  const [missed, setMissed] = createSignal(false);
  let input!: HTMLInputElement;

  onMount(() => input.focus());

  const view = () => terminal.viewFor(terminal.state.activeId ?? '');
  function find(backwards: boolean) {
    const current = view();
    if (!current) return;
    const found = backwards ? current.findPrevious(query()) : current.findNext(query());
    setMissed(query() !== '' && !found);
  }
  function close() {
    view()?.clearSearch();
    props.onClose();
    view()?.focus();
  }

  return (
    <div class="search-bar" role="search" data-testid="terminal-search">
      <input
        ref={input}
        type="search"
        placeholder="Find in terminal"
        aria-label="Find in terminal"
        classList={{ missed: missed() }}
        value={query()}
        onInput={(event) => {
          setQuery(event.currentTarget.value);
          find(false);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            find(event.shiftKey);
          } else if (event.key === 'Escape') {
            event.preventDefault();
            close();
          }
        }}
      />
      <button type="button" class="icon-button" aria-label="Previous match" onClick={() => find(true)}>↑</button>
      <button type="button" class="icon-button" aria-label="Next match" onClick={() => find(false)}>↓</button>
      <button type="button" class="icon-button" aria-label="Close search" onClick={close}>✕</button>
    </div>
  );
}
