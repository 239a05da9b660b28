// The remote hosts in the panel's chrome: a new-terminal button per remote, and a banner while a remote's link is down.
import { For } from 'solid-js';
import { useTerminal } from '../terminal/terminal-context.jsx';

/** "+ box": opens the developer's shell on that remote; waits, disabled, while its link is not up. */
export function HostTerminalButtons() {
  const terminal = useTerminal();
  return (
    <For each={terminal.hosts()}>
      {(host) => (
        <button
          type="button"
          class="button ghost host-new-terminal"
          aria-label={`New terminal on ${host.name}`}
          title={host.state === 'connected' ? `New terminal on ${host.name} (${host.destination})` : (host.detail ?? `Connecting to ${host.name}…`)}
          data-testid="new-remote-terminal"
          data-host={host.name}
          data-state={host.state}
          disabled={host.state !== 'connected'}
          onClick={() => terminal.newTerminal(host.name)}
        >
          + {host.name}
        </button>
      )}
    </For>
  );
}

/**
 * "Reconnecting to box…" while the link drops and comes back; what ssh said while a remote was never reached (a
 * refused key, a host that is down), which waiting may not mend; the one line saying what to fix when it cannot work.
 */
export function HostBanners() {
  const terminal = useTerminal();
  const text = (host: ReturnType<typeof terminal.hosts>[number]) => {
    if (host.state === 'reconnecting') return `Reconnecting to ${host.name}… its sessions keep running there.`;
    if (host.state === 'connecting') return `${host.detail!.charAt(0).toUpperCase()}${host.detail!.slice(1)}.`;
    return `${host.name}: ${host.detail ?? 'cannot connect'}`;
  };
  return (
    <For each={terminal.hosts().filter((host) => host.state === 'reconnecting' || host.state === 'failed' || (host.state === 'connecting' && host.detail !== null))}>
      {(host) => (
        <div class="host-banner" role="status" data-testid="host-banner" data-host={host.name} data-state={host.state} title={host.detail ?? undefined}>
          {text(host)}
        </div>
      )}
    </For>
  );
}
