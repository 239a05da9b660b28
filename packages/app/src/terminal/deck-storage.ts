/**
 * What a window remembers of its deck across a reload, in sessionStorage
 * (per window, per origin): the active tab, and which tabs are pinned. The
 * snapshot reads them back; every change of the deck writes them.
 */
import type { DeckState } from './deck-state.js';

const ACTIVE_TAB_KEY = 'ptydeck.activeTab';
/** Pinned tabs of this window, so a reload keeps them (sessionStorage: per window, per origin). */
const PINNED_TABS_KEY = 'ptydeck.pinnedTabs';

/** The tab this window had active before a reload, if any. */
export function storedActiveTab(): string | null {
  return sessionStorage.getItem(ACTIVE_TAB_KEY);
}

/** The tabs this window had pinned before a reload. */
export function storedPins(): string[] {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(PINNED_TABS_KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** Remembers the deck's active and pinned tabs. */
export function storeDeck(state: DeckState): void {
  // Per window (sessionStorage): a reload comes back to the tab it left.
  if (state.activeId === null) sessionStorage.removeItem(ACTIVE_TAB_KEY);
  else sessionStorage.setItem(ACTIVE_TAB_KEY, state.activeId);
  // Not before the first snapshot: it is what reads them back.
  if (state.instance !== null) {
    sessionStorage.setItem(PINNED_TABS_KEY, JSON.stringify(state.tabs.filter((tab) => tab.pinned).map((tab) => tab.id)));
  }
}
