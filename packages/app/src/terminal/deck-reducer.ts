// The panel's tabs, folded from session events and the developer's actions; pure and clock-free, so every rule
// is unit-tested.
import type { Attention, PtyEvent, SessionInfo } from '@ptydeck/contract';
import type { DeckAction, DeckState, Tab } from './deck-state.js';
import { shownText } from '../lib/shown-text.js';

/**
 * Turns protocol events and developer actions into panel state. Pure and
 * synchronous: time comes in on actions (`now`, 'linger-expired'), so every
 * rule below is unit-tested without a clock or a DOM.
 */
export function deckReducer(state: DeckState, action: DeckAction): DeckState {
  const next = reduce(state, action);
  return next === state ? state : settle(next);
}

/**
 * A session as the panel keeps it: its title (what its output set, OSC 2; or a record on disk) with its
 * direction-changing and invisible characters shown as escapes, so a tab or an overview row reads as it is.
 */
function shownInfo(info: SessionInfo): SessionInfo {
  const title = shownText(info.title);
  return title === info.title ? info : { ...info, title };
}

function reduce(state: DeckState, action: DeckAction): DeckState {
  switch (action.type) {
    case 'snapshot':
      return applySnapshot(state, { ...action, sessions: action.sessions.map(shownInfo) });
    case 'event':
      return applyEvent(state, 'info' in action.event ? ({ ...action.event, info: shownInfo(action.event.info) } as PtyEvent) : action.event);
    case 'agent-added':
      // Registered again under the same id: the newer entry replaces the older, in place.
      return state.agents.some((agent) => agent.id === action.agent.id)
        ? { ...state, agents: state.agents.map((agent) => (agent.id === action.agent.id ? action.agent : agent)) }
        : { ...state, agents: [...state.agents, action.agent] };
    case 'agent-removed':
      return state.agents.some((agent) => agent.id === action.id)
        ? { ...state, agents: state.agents.filter((agent) => agent.id !== action.id) }
        : state;
    case 'create-requested':
      // Open at once so the developer sees the terminal coming, not nothing.
      return { ...state, panelOpen: true, panelHidden: false, pendingCreates: [...state.pendingCreates, action.requestId] };
    case 'created': {
      const info = shownInfo(action.info);
      // The developer asked for this terminal: it comes to the front, but a panel they hid while it was
      // on its way stays hidden (the tab count says it is there).
      // Its pty.created may have come first and added it as a new tab nobody asked for: it is the developer's, never new.
      const next = { ...state, pendingCreates: without(state.pendingCreates, action.requestId) };
      const shown = updateTab(addAndActivate(upsertSession(next, info), info), info.id, (tab) => ({ ...tab, unseen: false }));
      return state.panelHidden ? { ...shown, panelOpen: false, panelHidden: true } : shown;
    }
    case 'create-failed': {
      const next = { ...state, pendingCreates: without(state.pendingCreates, action.requestId), notice: action.message };
      return next.tabs.length === 0 && next.pendingCreates.length === 0 ? { ...next, panelOpen: false } : next;
    }
    case 'open': {
      const info = state.sessions.find((session) => session.id === action.id);
      if (!info) return state;
      const next = addAndActivate({ ...state, dismissed: without(state.dismissed, action.id) }, info);
      // Reopened to read how it ended: a linger would take it away again at once.
      return info.status === 'exited' ? updateTab(next, info.id, (tab) => ({ ...tab, pinned: true })) : next;
    }
    case 'close': {
      if (!hasTab(state, action.id)) return state;
      const known = state.sessions.some((session) => session.id === action.id);
      const next = removeTab(state, action.id);
      return known ? { ...next, dismissed: [...without(next.dismissed, action.id), action.id] } : next;
    }
    case 'close-sessions':
      return action.ids.reduce((next, id) => {
        if (hasTab(next, id)) return reduce(next, { type: 'close', id });
        // No tab now, but its closing sends pty.updated before it exits: no tab for that either.
        const known = next.sessions.some((session) => session.id === id);
        return known && !next.dismissed.includes(id) ? { ...next, dismissed: [...next.dismissed, id] } : next;
      }, state);
    case 'focus':
      return hasTab(state, action.id) ? { ...state, activeId: action.id, panelOpen: true, panelHidden: false } : state;
    case 'next':
    case 'previous':
      return cycle(state, action.type === 'next' ? 1 : -1);
    case 'pin':
      return updateTab(state, action.id, (tab) => ({
        ...tab,
        pinned: action.pinned,
        // Unpinning an exited tab gives it a fresh linger rather than closing it under the pointer.
        lingerFrom: !action.pinned && tab.status === 'exited' ? action.now : tab.lingerFrom,
      }));
    case 'set-panel':
      return {
        ...state,
        panelOpen: action.open && (state.tabs.length > 0 || state.pendingCreates.length > 0),
        panelHidden: !action.open,
      };
    case 'toggle-panel':
      return reduce(state, { type: 'set-panel', open: !state.panelOpen });
    case 'linger-expired': {
      const tab = state.tabs.find((candidate) => candidate.id === action.id);
      if (!tab || tab.pinned || tab.status !== 'exited' || tab.source !== 'agent') return state;
      return reduce(state, { type: 'close', id: action.id });
    }
    case 'terminal-focus':
      return { ...state, focusedId: action.id !== null && hasTab(state, action.id) ? action.id : null };
    case 'notice':
      return { ...state, notice: action.message };
  }
}

/** Exited agent tabs waiting for their linger to end, with when it started. Pinned tabs are not among them. */
export function lingeringTabs(state: DeckState): { id: string; since: number }[] {
  return state.tabs
    .filter((tab) => tab.source === 'agent' && tab.status === 'exited' && !tab.pinned)
    .map((tab) => ({ id: tab.id, since: tab.lingerFrom ?? 0 }));
}

export function tabFromSession(info: SessionInfo): Tab {
  return {
    id: info.id,
    title: info.title,
    source: info.source,
    owner: info.owner,
    ownerName: info.ownerName,
    status: info.status,
    exitCode: info.exitCode,
    signal: info.signal,
    closeRequested: info.closeRequested === true,
    pinned: false,
    lingerFrom: info.status === 'exited' ? info.exitedAt : null,
    gone: false,
    unseen: false,
    attention: waitingFor(info),
    readOnly: info.readOnly === true,
    lost: info.lost ?? null,
    ...(info.host !== undefined ? { host: info.host } : {}),
    restored: info.restored === true,
  };
}

/**
 * What a session waits for the developer to answer, if anything. Only a running
 * session can wait: an exit ends the question even if the info still carried it.
 */
export function waitingFor(info: Pick<SessionInfo, 'status' | 'attention'>): Attention | null {
  return info.status === 'running' ? (info.attention ?? null) : null;
}

/**
 * What holds after every transition: the active tab, once shown, is seen;
 * the most-recently-used order leads with it and names only existing tabs.
 */
function settle(state: DeckState): DeckState {
  let next = state;
  const active = next.activeId;
  if (next.panelOpen && active !== null && next.tabs.some((tab) => tab.id === active && tab.unseen)) {
    next = updateTab(next, active, (tab) => ({ ...tab, unseen: false }));
  }
  const recent = next.recent.filter((id) => id !== active && next.tabs.some((tab) => tab.id === id));
  if (active !== null) recent.unshift(active);
  if (recent.length !== next.recent.length || recent.some((id, index) => id !== next.recent[index])) next = { ...next, recent };
  return next;
}

function applySnapshot(state: DeckState, action: Extract<DeckAction, { type: 'snapshot' }>): DeckState {
  const first = state.instance === null;
  const instanceChanged = !first && state.instance !== action.instance;
  const byId = new Map(action.sessions.map((session) => [session.id, session]));
  const dismissed = instanceChanged ? [] : state.dismissed.filter((id) => byId.has(id));
  const pinnedIds = action.pinnedIds ?? [];
  // A lost session, the developer's or an agent's, is shown until closed: it is what the restart left of it.
  const wantsTab = (info: SessionInfo) =>
    !dismissed.includes(info.id) &&
    (info.status === 'running' ||
      info.status === 'lost' ||
      (info.source === 'agent' &&
        (pinnedIds.includes(info.id) || (info.exitedAt !== null && action.now - info.exitedAt < action.lingerMs))));

  // Keep the tabs that still exist, in their order, with fresh info.
  const tabs: Tab[] = [];
  for (const tab of state.tabs) {
    const info = byId.get(tab.id);
    if (!info) {
      // Removed before this snapshot, but its tab still shows how it ended (same server only).
      if (tab.gone && !instanceChanged) tabs.push(tab);
      continue;
    }
    if (info.status === 'exited' && info.source === 'user') continue; // exited while we were away
    tabs.push(mergeInfo(tab, info));
  }
  const added = sortByCreation(action.sessions.filter((info) => !tabs.some((tab) => tab.id === info.id) && wantsTab(info)));
  const hadActive = state.activeId !== null && tabs.some((tab) => tab.id === state.activeId);
  // A shell opened while we were away arrives as a live one would: in the background
  // when the developer has a tab in front of them.
  tabs.push(
    ...added.map((info) => ({
      ...tabFromSession(info),
      pinned: pinnedIds.includes(info.id),
      unseen: !first && (hadActive || state.panelHidden),
    })),
  );

  let activeId = hadActive ? state.activeId : null;
  let panelOpen = first ? tabs.length > 0 : state.panelOpen && tabs.length > 0;
  if (!first && !panelOpen && !state.panelHidden && added.some((info) => info.status === 'running')) panelOpen = true;
  if (activeId === null && first && action.preferredActiveId) {
    activeId = tabs.some((tab) => tab.id === action.preferredActiveId) ? action.preferredActiveId : null;
  }
  if (activeId === null) activeId = tabs.at(-1)?.id ?? null;

  return {
    ...state,
    tabs,
    activeId,
    panelOpen,
    sessions: sortByCreation(action.sessions),
    agents: action.agents,
    instance: action.instance,
    dismissed,
    focusedId: state.focusedId !== null && tabs.some((tab) => tab.id === state.focusedId) ? state.focusedId : null,
    pendingCreates: first ? state.pendingCreates : [],
  };
}

function applyEvent(state: DeckState, event: PtyEvent): DeckState {
  switch (event.type) {
    case 'pty.created': {
      const next = upsertSession(state, event.info);
      if (state.dismissed.includes(event.info.id)) return next;
      // A developer's shell already over when first heard of (a remote host's, relayed on connecting):
      // no tab, as a snapshot gives none.
      if (event.info.source === 'user' && event.info.status === 'exited' && !hasTab(next, event.info.id)) return next;
      // A new shell, an agent's or another window's: shown without taking the developer's place.
      return addInBackground(next, event.info);
    }
    case 'pty.updated': {
      const next = upsertSession(state, event.info);
      if (hasTab(next, event.info.id)) return updateTab(next, event.info.id, (tab) => mergeInfo(tab, event.info));
      if (event.info.status === 'running' && !next.dismissed.includes(event.info.id)) {
        // Missed its creation (raced the snapshot): the same as a creation.
        return addInBackground(next, event.info);
      }
      return next;
    }
    case 'pty.exited': {
      const info = { ...event.info, status: 'exited' as const, exitCode: event.exitCode, signal: event.signal };
      const next = upsertSession(state, info);
      const tab = next.tabs.find((candidate) => candidate.id === event.id);
      if (!tab) return next;
      // A user's shell that exits closes its tab, as any terminal does.
      if (tab.source === 'user') return removeTab(next, event.id);
      // An agent's stays a moment so the developer sees how it ended.
      return updateTab(next, event.id, (current) => ({ ...mergeInfo(current, info), lingerFrom: info.exitedAt ?? current.lingerFrom ?? 0 }));
    }
    case 'pty.removed': {
      const next: DeckState = {
        ...state,
        sessions: state.sessions.filter((session) => session.id !== event.id),
        dismissed: without(state.dismissed, event.id),
      };
      const tab = next.tabs.find((candidate) => candidate.id === event.id);
      if (!tab) return next;
      // An agent's terminal_close removes its session at once: its exited tab
      // keeps its linger (or its pin) and exit code, cut off from the server.
      if (tab.source === 'agent' && tab.status === 'exited') return updateTab(next, event.id, (current) => ({ ...current, gone: true }));
      return removeTab(next, event.id);
    }
  }
}

/** A tab the developer asked for (their new terminal, a session opened from the overview): brought to the front. */
function addAndActivate(state: DeckState, info: SessionInfo): DeckState {
  const tabs = hasTab(state, info.id)
    ? state.tabs.map((tab) => (tab.id === info.id ? mergeInfo(tab, info) : tab))
    : [...state.tabs, tabFromSession(info)];
  return { ...state, tabs, activeId: info.id, panelOpen: true, panelHidden: false };
}

/**
 * A tab nobody here asked for (an agent's shell): it never takes the active
 * tab from the developer, nor opens a panel they hid. It becomes active only
 * when no tab is, and opens the panel only when the panel closed by itself.
 */
function addInBackground(state: DeckState, info: SessionInfo): DeckState {
  if (hasTab(state, info.id)) return updateTab(state, info.id, (tab) => mergeInfo(tab, info));
  const activeId = state.activeId ?? info.id;
  const panelOpen = state.panelOpen || !state.panelHidden;
  const tab = { ...tabFromSession(info), unseen: activeId !== info.id || !panelOpen };
  return { ...state, tabs: [...state.tabs, tab], activeId, panelOpen };
}

/**
 * Removes a tab. If it was active, the tab active before it comes back (the
 * most-recently-used order), else its neighbour; no tabs left closes the panel.
 */
function removeTab(state: DeckState, id: string): DeckState {
  const index = state.tabs.findIndex((tab) => tab.id === id);
  if (index < 0) return state;
  const tabs = state.tabs.filter((tab) => tab.id !== id);
  const previous = state.recent.find((candidate) => candidate !== id && tabs.some((tab) => tab.id === candidate));
  const activeId = state.activeId === id ? previous ?? (tabs[index] ?? tabs[index - 1])?.id ?? null : state.activeId;
  return {
    ...state,
    tabs,
    activeId,
    panelOpen: tabs.length > 0 && state.panelOpen,
    focusedId: state.focusedId === id ? null : state.focusedId,
  };
}

function cycle(state: DeckState, step: 1 | -1): DeckState {
  if (state.tabs.length === 0) return state;
  const index = state.tabs.findIndex((tab) => tab.id === state.activeId);
  const nextIndex = index < 0 ? 0 : (index + step + state.tabs.length) % state.tabs.length;
  return { ...state, activeId: state.tabs[nextIndex]!.id, panelOpen: true };
}

function mergeInfo(tab: Tab, info: SessionInfo): Tab {
  return {
    ...tab,
    title: info.title,
    owner: info.owner,
    ownerName: info.ownerName,
    status: info.status,
    exitCode: info.exitCode,
    signal: info.signal,
    closeRequested: info.closeRequested === true,
    attention: waitingFor(info),
    readOnly: info.readOnly === true,
    lost: info.lost ?? null,
    restored: info.restored === true,
  };
}

function upsertSession(state: DeckState, info: SessionInfo): DeckState {
  const exists = state.sessions.some((session) => session.id === info.id);
  const sessions = exists
    ? state.sessions.map((session) => (session.id === info.id ? info : session))
    : sortByCreation([...state.sessions, info]);
  return { ...state, sessions };
}

function updateTab(state: DeckState, id: string, update: (tab: Tab) => Tab): DeckState {
  return hasTab(state, id) ? { ...state, tabs: state.tabs.map((tab) => (tab.id === id ? update(tab) : tab)) } : state;
}

function hasTab(state: DeckState, id: string): boolean {
  return state.tabs.some((tab) => tab.id === id);
}

function without<T>(list: T[], value: T): T[] {
  return list.includes(value) ? list.filter((item) => item !== value) : list;
}

function sortByCreation(sessions: SessionInfo[]): SessionInfo[] {
  return [...sessions].sort((a, b) => a.createdAt - b.createdAt);
}
