// The panel's state of sessions' processes: lists asked for, what ended sessions left running, and ending them.
import { createStore, produce, reconcile } from 'solid-js/store';
import { DisposableStore, type LeftoverKind, type LeftoverSession, type SessionProcess } from '@ptydeck/contract';
import type { PanelClient } from '../connection/panel-client.js';
import type { PortChip } from './port-chips.js';
import { shownText } from '../lib/shown-text.js';

export interface ShownProcesses {
  /** Null until the answer comes, or where the system cannot say (`known` false). */
  processes: SessionProcess[] | null;
  known: boolean;
}

export interface ProcessPanelState {
  /** Ended sessions' processes still running, from the core. */
  leftovers: LeftoverSession[];
  /** The sessions whose processes the developer asked to see. */
  shown: Record<string, ShownProcesses>;
  /** Pids whose end was asked and not yet answered: their buttons wait. */
  ending: number[];
}

export interface ProcessPanelDeps {
  client: Pick<PanelClient, 'onProcesses' | 'onError' | 'queryProcesses' | 'endProcesses' | 'forwardPort' | 'onPortForwarded'>;
  /** Tells the developer something went wrong or was left running. */
  notice: (message: string) => void;
  /** Opens a URL through the checked path links in output take. */
  openLink: (uri: string) => void;
}

/**
 * What the panel shows of sessions' processes: each one's list on request,
 * the leftovers of ended sessions, and ending them (the core checks that a
 * session owns every pid it is asked to end). Ports ride on the sessions.
 */
export function createProcessPanel(deps: ProcessPanelDeps) {
  const { client } = deps;
  const [state, setState] = createStore<ProcessPanelState>({ leftovers: [], shown: {}, ending: [] });
  const queries = new Map<string, string>();
  const ends = new Map<string, number[]>();
  /** Port forwards this panel asked for: their answers open the page. */
  const forwards = new Set<string>();
  /** The leftovers each host last reported ('' for this machine). */
  const leftoversByHost = new Map<string, LeftoverSession[]>();
  const disposables = new DisposableStore();

  function query(id: string): void {
    const requestId = client.queryProcesses(id);
    if (requestId === null) return deps.notice('Not connected to ptydeck: cannot list processes now.');
    queries.set(requestId, id);
  }

  function settleEnd(requestId: string): void {
    const pids = ends.get(requestId) ?? [];
    ends.delete(requestId);
    setState('ending', (ending) => ending.filter((pid) => !pids.includes(pid)));
  }

  disposables.add(
    client.onProcesses((message) => {
      switch (message.type) {
        case 'processes.leftovers': {
          // Each host's message replaces that host's leftovers only: this machine's and each remote's, shown together.
          leftoversByHost.set(message.host ?? '', message.sessions);
          setState('leftovers', reconcile([...leftoversByHost.values()].flat(), { key: 'id' }));
          return;
        }
        case 'processes.list': {
          if (queries.get(message.requestId) !== message.id) return;
          queries.delete(message.requestId);
          if (!(message.id in state.shown)) return;
          setState('shown', message.id, { processes: message.processes, known: message.processes !== null });
          return;
        }
        case 'processes.ended': {
          if (!ends.has(message.requestId)) return;
          settleEnd(message.requestId);
          const left = [...message.notEnded.map((proc) => `${shownText(proc.command)} (pid ${proc.pid})`), ...message.refused.map((pid) => `pid ${pid} (no longer this session's)`)];
          if (left.length > 0) deps.notice(`Not ended: ${left.join(', ')}`);
          if (message.id in state.shown) query(message.id);
          return;
        }
      }
    }),
  );
  disposables.add(
    client.onError((error) => {
      if (error.requestId === undefined) return;
      if (ends.has(error.requestId)) settleEnd(error.requestId);
      queries.delete(error.requestId);
      if (forwards.delete(error.requestId)) deps.notice(`Could not open the port: ${error.message}`);
    }),
  );

  disposables.add(
    client.onPortForwarded(({ requestId, url }) => {
      if (forwards.delete(requestId)) deps.openLink(url);
    }),
  );

  return {
    state,
    /** Shows the session's processes (asking the core for them now), or hides them. */
    toggle(id: string): void {
      if (id in state.shown) {
        setState('shown', produce((shown) => void delete shown[id]));
        return;
      }
      setState('shown', id, { processes: null, known: true });
      query(id);
    },
    /** Asks the core to end these processes of the session (with `kind` 'chat', of a dead host's chat). */
    end(id: string, pids: number[], kind: LeftoverKind = 'session'): void {
      if (pids.length === 0) return;
      const requestId = client.endProcesses(id, pids, kind);
      if (requestId === null) return deps.notice('Not connected to ptydeck: cannot end processes now.');
      ends.set(requestId, pids);
      setState('ending', (ending) => [...ending, ...pids]);
    },
    /** Opens a port's loopback URL in the browser; a chip without one does nothing. */
    openPort(chip: PortChip): void {
      if (chip.url !== null) deps.openLink(chip.url);
    },
    /**
     * Opens a remote session's port: the core forwards a port of this
     * machine's loopback to it through ssh and answers with that URL, which
     * opens as any chip's does. Only a port the remote listens on loopback (or
     * a wildcard) is forwarded.
     */
    openRemotePort(id: string, chip: PortChip): void {
      if (chip.url === null) return;
      const requestId = client.forwardPort(id, chip.port);
      if (requestId === null) return deps.notice('Not connected to ptydeck: cannot open the port now.');
      forwards.add(requestId);
    },
    dispose: () => disposables.dispose(),
  };
}

export type ProcessPanel = ReturnType<typeof createProcessPanel>;
