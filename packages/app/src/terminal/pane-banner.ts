import type { Tab } from './deck-state.js';

/**
 * The one banner a tab's terminal has above it: `lost` (an earlier host's
 * session: nothing reaches a process), `read-only` (an agent's own command),
 * `agent` (an agent's shell, whose agent sees what the developer types), or
 * none (the developer's own). It depends only on the tab, never on focus, so
 * the terminal's room below it (and the PTY's size) stays put when the
 * developer clicks in and out.
 */
export type PaneBanner = 'lost' | 'read-only' | 'agent';

export function paneBanner(tab: Pick<Tab, 'status' | 'readOnly' | 'source'>): PaneBanner | null {
  if (tab.status === 'lost') return 'lost';
  if (tab.readOnly) return 'read-only';
  return tab.source === 'agent' ? 'agent' : null;
}

/** Keys typed now reach an agent's running shell, which the agent reads: what the typing marks say. */
export function typingIntoAgent(tab: Pick<Tab, 'id' | 'status' | 'readOnly' | 'source'>, focusedId: string | null, offline: boolean): boolean {
  return paneBanner(tab) === 'agent' && tab.status === 'running' && focusedId === tab.id && !offline;
}
