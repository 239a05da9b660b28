import type { Tab } from './deck-state.js';

/** Accessible name of a tab: its title, and for an agent's tab, whose it is ("claude-code agent: bash"). */
export function tabLabel(tab: Pick<Tab, 'source' | 'ownerName' | 'title'>): string {
  return tab.source === 'agent' ? `${tab.ownerName ?? 'unknown'} agent: ${tab.title}` : tab.title;
}

/** How an exited tab says it ended: the signal if one killed it, else the exit code. */
export function exitLabel(tab: Pick<Tab, 'exitCode' | 'signal'>): string {
  if (tab.signal) return tab.signal;
  return `exit ${tab.exitCode ?? '?'}`;
}
