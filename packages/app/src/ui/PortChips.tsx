// A session's listening ports as chips, opening loopback ones through the checked link path.
import type { ListeningPort } from '@ptydeck/contract';
import { For } from 'solid-js';
import { portChips, portTitle } from '../processes/port-chips.js';
import { useTerminal } from '../terminal/terminal-context.jsx';

/** A chip per listening port; a loopback one opens the server in the browser, through the checked link path. */
export function PortChips(props: { ports: readonly ListeningPort[] | null | undefined; sessionId: string }) {
  const terminal = useTerminal();
  /** A remote session's chip opens through an ssh forward the core makes on the click. */
  const host = () => terminal.state.sessions.find((session) => session.id === props.sessionId)?.host;
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
          data-host={host() ?? ''}
          title={host() === undefined || chip.url === null ? portTitle(chip) : `${portTitle(chip).replace(/; open .*$/, '')} on ${host()}; open it here through ssh`}
          aria-label={chip.url === null ? `Port ${chip.port}` : `Open port ${chip.port} in the browser`}
          onClick={() => {
            const remote = host();
            if (remote === undefined) terminal.processes.openPort(chip);
            else terminal.processes.openRemotePort(props.sessionId, chip);
          }}
        >
          :{chip.port}
        </button>
      )}
    </For>
  );
}
