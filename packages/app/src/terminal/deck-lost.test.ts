import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '@ptydeck/contract';
import { deckReducer, lingeringTabs } from './deck-reducer.js';
import { markedRestored, tabLabel } from './tab-label.js';
import { created, ids, removed, run, session, snapshot, userSession } from './testing/deck-fixtures.js';

/** What a host that restarted says of a session the one before it ran: its process is gone. */
function lostOf(info: SessionInfo, unwrittenBytes: number | null = 0): SessionInfo {
  return { ...info, status: 'lost', pid: 0, lost: { foundAt: 70_000, unwrittenBytes } };
}

describe('deckReducer: lost sessions (the host restarted)', () => {
  it('opens a tab for every lost session on the first snapshot, the developer\'s and agents\', marked lost', () => {
    const mine = lostOf(userSession('mine'), 120);
    const agents = lostOf(session('agents'));
    const state = run(snapshot([mine, agents, userSession('live')], 'i2', 60_000));
    expect(ids(state)).toEqual(['mine', 'agents', 'live']);
    expect(state.tabs[0]).toMatchObject({ status: 'lost', lost: { foundAt: 70_000, unwrittenBytes: 120 }, lingerFrom: null });
    expect(state.tabs[2]).toMatchObject({ status: 'running', lost: null });
    expect(state.panelOpen).toBe(true);
  });

  it('turns open tabs lost in place when the panel reconnects to the restarted host, order and active tab kept', () => {
    const [a, u] = [session('a'), userSession('u')];
    let state = run(snapshot([a, u], 'old'));
    state = deckReducer(state, { type: 'focus', id: 'a' });
    state = deckReducer(state, snapshot([lostOf(a), lostOf(u)], 'new'));
    expect(ids(state)).toEqual(['a', 'u']);
    expect(state.tabs.map((tab) => tab.status)).toEqual(['lost', 'lost']);
    expect(state.activeId).toBe('a');
    expect(state.panelOpen).toBe(true);
  });

  it('never lingers a lost tab away: it stays until closed', () => {
    const a = lostOf(session('a'));
    let state = run(snapshot([a]));
    expect(lingeringTabs(state)).toEqual([]);
    state = deckReducer(state, { type: 'linger-expired', id: 'a' });
    expect(ids(state)).toEqual(['a']);
    // A later snapshot long after its host found it keeps it too.
    expect(ids(deckReducer(state, snapshot([a], 'i1', 10_000_000)))).toEqual(['a']);
  });

  it('closes on the developer\'s close and does not come back; its removal closes it too', () => {
    const [a, u] = [lostOf(session('a')), lostOf(userSession('u'))];
    let state = run(snapshot([a, u]));
    state = deckReducer(state, { type: 'close', id: 'a' });
    expect(ids(state)).toEqual(['u']);
    expect(ids(deckReducer(state, snapshot([a, u])))).toEqual(['u']);
    state = deckReducer(state, removed('u'));
    expect(ids(state)).toEqual([]);
    expect(state.sessions.map((info) => info.id)).toEqual(['a']);
    expect(state.panelOpen).toBe(false);
  });

  it('reopens from the overview as a lost tab, and shows one restored while the panel is connected in the background', () => {
    const a = lostOf(session('a'));
    let state = run(snapshot([a]), { type: 'close', id: 'a' }, { type: 'open', id: 'a' });
    expect(state.tabs).toEqual([expect.objectContaining({ id: 'a', status: 'lost', pinned: false })]);
    state = deckReducer(state, created(lostOf(userSession('late'))));
    expect(ids(state)).toEqual(['a', 'late']);
    expect(state.activeId).toBe('a');
    expect(state.tabs[1]).toMatchObject({ status: 'lost', unseen: true });
  });

  it("marks a restored exited session's tab restored, and a lost one lost only", () => {
    const exited = { ...session('done'), status: 'exited' as const, exitCode: 0, exitedAt: 1, restored: true };
    const lost = { ...lostOf(userSession('gone')), restored: true };
    const state = run(snapshot([exited, lost, userSession('live')]), { type: 'open', id: 'done' });
    expect(state.tabs.map(({ id, restored }) => ({ id, restored }))).toEqual([
      { id: 'gone', restored: true },
      { id: 'live', restored: false },
      { id: 'done', restored: true },
    ]);
    expect(state.tabs.map(tabLabel)).toEqual(['sh-gone, lost', 'sh-live', 'claude-code agent: sh-done, restored']);
    expect(state.sessions.filter(markedRestored).map((info) => info.id)).toEqual(['done']);
  });
});
