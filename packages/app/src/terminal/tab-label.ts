import type { SessionStatus } from '@ptydeck/contract';
import type { Tab } from './deck-state.js';

/**
 * Accessible name of a tab: its title, for an agent's tab whose it is ("claude-code agent: bash"),
 * for a display-only one that it is ("demo agent: npm test, read-only"), for one an earlier
 * host left that it is lost ("bash, lost") or restored ("bash, restored"), and while its program waits for an answer, that
 * it does ("codex agent: make build, waiting for input").
 */
export function tabLabel(
  tab: Pick<Tab, 'source' | 'ownerName' | 'title'> & { attention?: Tab['attention']; readOnly?: boolean; status?: Tab['status']; host?: string; restored?: boolean },
): string {
  const title = tab.source === 'agent' ? `${tab.ownerName ?? 'unknown'} agent: ${tab.title}` : tab.title;
  const name = tab.host === undefined ? title : `${title} on ${tab.host}`;
  const marks = [
    tab.readOnly ? 'read-only' : null,
    tab.status === 'lost' ? 'lost' : null,
    markedRestored(tab) ? 'restored' : null,
    tab.attention ? 'waiting for input' : null,
  ];
  return [name, ...marks.filter((mark) => mark !== null)].join(', ');
}

/** What a restored session's marker says on hover. */
export const RESTORED_NOTE = 'Restored from the record an earlier ptydeck host left on disk: anything running as you could have written it, so its title, output and cwd prove nothing';

/**
 * A session brought back from an earlier host's record that is not lost (a
 * lost one says lost already): it gets a "restored" marker, since the record
 * is a file any process of the developer's could have written.
 */
export function markedRestored(session: { restored?: boolean; status?: SessionStatus }): boolean {
  return session.restored === true && session.status !== 'lost';
}

/** How an exited tab says it ended: closed if someone asked, else the signal that killed it, else the exit code. */
export function exitLabel(tab: Pick<Tab, 'exitCode' | 'signal'> & { closeRequested?: boolean }): string {
  if (tab.closeRequested) return 'closed';
  if (tab.signal) return tab.signal;
  return `exit ${tab.exitCode ?? '?'}`;
}

/** An exit worth flagging: a non-zero code or a signal nobody asked for. */
export function endedBadly(tab: Pick<Tab, 'exitCode'> & { closeRequested?: boolean }): boolean {
  return !tab.closeRequested && tab.exitCode !== 0;
}
