// A session's listening ports as chips, opening loopback ones through the checked link path.
import type { ListeningPort } from '@ptydeck/contract';
import { For } from 'solid-js';
import { portChips, portTitle } from '../processes/port-chips.js';
import { useTerminal } from '../terminal/terminal-context.jsx';

/** A chip per listening port; a loopback one opens the server in the browser, through the checked link path. */
export function PortChips(props: { ports: readonly ListeningPort[] | null | undefined; sessionId: string }) {
  const terminal = useTerminal();
  return (
    <For each={portChips(props.ports)}>
      {(chip) => (
        <button
          type="button"
          class="port-chip"
          data-testid="port-chip"
          data-session-id={props.sessionId}
          data-port={chip.port}
          disabled={chip.url === null}
          title={portTitle(chip)}
          aria-label={chip.url === null ? `Port ${chip.port}` : `Open port ${chip.port} in the browser`}
          onClick={() => terminal.processes.openPort(chip)}
        >
          :{chip.port}
        </button>
      )}
    </For>
  );
}
