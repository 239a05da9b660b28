import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '@ptydeck/contract';
import { deckReducer, lingeringTabs } from './deck-reducer.js';
import { created, event, exited, ids, LINGER, removed, run, session, snapshot, userSession } from './testing/deck-fixtures.js';
import { initialDeckState, type DeckState } from './deck-state.js';

describe('deckReducer: start-up', () => {
  it('keeps the panel closed when the first snapshot has no sessions', () => {
    const state = run(snapshot([]));
    expect(state.panelOpen).toBe(false);
    expect(state.tabs).toEqual([]);
    expect(state.instance).toBe('i1');
  });

  it('restores a tab per running session and opens the panel when sessions exist', () => {
    const state = run(snapshot([session('a'), userSession('u')]));
    expect(ids(state)).toEqual(['a', 'u']);
    expect(state.panelOpen).toBe(true);
    expect(state.activeId).toBe('u');
  });

  it('after a reload, re-activates the tab that was active if it still exists', () => {
    const [a, b] = [session('a'), session('b')];
    const restore = (preferredActiveId: string | null) =>
      deckReducer(initialDeckState, { type: 'snapshot', sessions: [a, b], agents: [], instance: 'i1', now: 0, lingerMs: LINGER, preferredActiveId });
    expect(restore('a').activeId).toBe('a');
    expect(restore('gone').activeId).toBe('b');
    expect(restore(null).activeId).toBe('b');
  });

  it('restores an exited agent session only while its linger lasts', () => {
    const recent = session('recent', { status: 'exited', exitCode: 3, exitedAt: 58_000 });
    const old = session('old', { status: 'exited', exitCode: 0, exitedAt: 10_000 });
    const deadUser = userSession('dead', { status: 'exited', exitCode: 0, exitedAt: 59_000 });
    const state = run(snapshot([recent, old, deadUser], 'i1', 60_000));
    expect(ids(state)).toEqual(['recent']);
    expect(state.tabs[0]).toMatchObject({ status: 'exited', exitCode: 3, lingerFrom: 58_000 });
    expect(state.sessions.map((s) => s.id)).toEqual(['recent', 'old', 'dead']);
  });
});

describe('deckReducer: agent sessions', () => {
  it('marks a display-only session\'s tab read-only, and keeps it so on updates', () => {
    const own = session('own', { readOnly: true });
    let state = run(snapshot([]), created(own));
    expect(state.tabs[0]!.readOnly).toBe(true);
    state = deckReducer(state, event({ type: 'pty.updated', info: { ...own, title: 'renamed' } }));
    expect(state.tabs[0]).toMatchObject({ readOnly: true, title: 'renamed' });
  });

  it('adds, activates and opens the panel on pty.created from an agent', () => {
    const a = session('a');
    const state = run(snapshot([]), created(a));
    expect(state.panelOpen).toBe(true);
    expect(state.activeId).toBe('a');
    expect(state.tabs[0]).toEqual({
      id: 'a', title: 'sh-a', source: 'agent', owner: 'conn-1', ownerName: 'claude-code',
      status: 'running', exitCode: null, signal: null, closeRequested: false, pinned: false, lingerFrom: null, gone: false, unseen: false, attention: null, readOnly: false, lost: null, restored: false,
    });
  });

  it('keeps a panel the developer hid hidden when an agent starts a shell; the tab waits, unseen', () => {
    let state = run(snapshot([userSession('u')]), { type: 'toggle-panel' }, created(session('a')));
    expect(state.panelOpen).toBe(false);
    expect(state.activeId).toBe('u');
    expect(state.tabs.find((tab) => tab.id === 'a')!.unseen).toBe(true);
    // Showing the panel again shows the developer's tab; the agent's stays marked until looked at.
    state = deckReducer(state, { type: 'toggle-panel' });
    expect(state.activeId).toBe('u');
    expect(state.tabs.find((tab) => tab.id === 'a')!.unseen).toBe(true);
    state = deckReducer(state, { type: 'focus', id: 'a' });
    expect(state.tabs.find((tab) => tab.id === 'a')!.unseen).toBe(false);
  });

  it('keeps a hidden panel hidden even when the new agent tab is the only one, and marks it unseen', () => {
    const u = userSession('u');
    const state = run(snapshot([u]), { type: 'toggle-panel' }, exited(u, 0), created(session('a')));
    expect(state.panelOpen).toBe(false);
    expect(state.activeId).toBe('a');
    expect(state.tabs[0]!.unseen).toBe(true);
  });

  it('opens a second agent tab in the background: the developer\'s active tab stays, the new one is marked', () => {
    const state = run(snapshot([]), created(session('a')), created(session('b')));
    expect(ids(state)).toEqual(['a', 'b']);
    expect(state.activeId).toBe('a');
    expect(state.tabs.map((tab) => tab.unseen)).toEqual([false, true]);
  });

  it('does not take the active tab from the developer\'s own terminal', () => {
    const u = userSession('u');
    const state = run(snapshot([]), { type: 'create-requested', requestId: 'r' }, { type: 'created', requestId: 'r', info: u },
      { type: 'terminal-focus', id: 'u' }, created(session('a')));
    expect(state.activeId).toBe('u');
    expect(state.focusedId).toBe('u');
    expect(state.panelOpen).toBe(true);
  });

  it('reopening a lingered-out tab from the overview pins it, so it stays to be read', () => {
    const a = session('a');
    let state = run(snapshot([]), created(a), exited(a, 3, 50_000), { type: 'linger-expired', id: 'a' });
    expect(state.tabs).toEqual([]);
    state = deckReducer(state, { type: 'open', id: 'a' });
    expect(state.tabs[0]).toMatchObject({ id: 'a', status: 'exited', exitCode: 3, pinned: true });
    expect(lingeringTabs(state)).toEqual([]);
    expect(deckReducer(state, { type: 'linger-expired', id: 'a' })).toBe(state);
  });

  it('keeps an exited agent tab with its exit code, then closes it when the linger expires', () => {
    const a = session('a');
    let state = run(snapshot([]), created(a), exited(a, 7, 50_000));
    expect(state.tabs[0]).toMatchObject({ status: 'exited', exitCode: 7, lingerFrom: 50_000 });
    expect(state.panelOpen).toBe(true);
    expect(lingeringTabs(state)).toEqual([{ id: 'a', since: 50_000 }]);
    state = deckReducer(state, { type: 'linger-expired', id: 'a' });
    expect(state.tabs).toEqual([]);
    expect(state.panelOpen).toBe(false);
    expect(state.activeId).toBeNull();
  });

  it('shows the signal when the process was killed', () => {
    const a = session('a');
    const state = run(snapshot([]), created(a), event({
      type: 'pty.exited', id: 'a', exitCode: null, signal: 'SIGKILL',
      info: { ...a, status: 'exited', exitCode: null, signal: 'SIGKILL', exitedAt: 1 },
    }));
    expect(state.tabs[0]).toMatchObject({ exitCode: null, signal: 'SIGKILL', closeRequested: false });
  });

  it('keeps that the close was asked for, for a tab to say closed rather than failed', () => {
    const a = session('a');
    const state = run(snapshot([]), created(a), event({
      type: 'pty.exited', id: 'a', exitCode: null, signal: 'SIGHUP',
      info: { ...a, status: 'exited', exitCode: null, signal: 'SIGHUP', exitedAt: 1, closeRequested: true },
    }), removed('a'));
    expect(state.tabs[0]).toMatchObject({ signal: 'SIGHUP', closeRequested: true, gone: true });
  });

  it('keeps a pinned exited tab past its linger', () => {
    const a = session('a');
    let state = run(snapshot([]), created(a), { type: 'pin', id: 'a', pinned: true, now: 1 }, exited(a, 1));
    expect(lingeringTabs(state)).toEqual([]);
    state = deckReducer(state, { type: 'linger-expired', id: 'a' });
    expect(ids(state)).toEqual(['a']);
    expect(state.tabs[0]!.pinned).toBe(true);
  });

  it('gives an unpinned exited tab a fresh linger', () => {
    const a = session('a');
    const state = run(snapshot([]), created(a), exited(a, 0, 50_000),
      { type: 'pin', id: 'a', pinned: true, now: 51_000 },
      { type: 'pin', id: 'a', pinned: false, now: 90_000 });
    expect(lingeringTabs(state)).toEqual([{ id: 'a', since: 90_000 }]);
  });

  it('ignores a stale linger timer for a tab that is running or gone', () => {
    const a = session('a');
    const running = run(snapshot([]), created(a));
    expect(deckReducer(running, { type: 'linger-expired', id: 'a' })).toBe(running);
    expect(deckReducer(running, { type: 'linger-expired', id: 'zzz' })).toBe(running);
  });

  it('updates title and info on pty.updated without changing the active tab', () => {
    const a = session('a');
    const b = session('b');
    const state = run(snapshot([]), created(a), created(b), { type: 'focus', id: 'b' }, event({ type: 'pty.updated', info: { ...a, title: 'vim' } }));
    expect(state.tabs[0]!.title).toBe('vim');
    expect(state.activeId).toBe('b');
  });

  it("shows a title's direction-changing and invisible characters as escapes, in its tab and in the sessions the overview lists", () => {
    // A session's title is what its output set (OSC 2): `\u202e` made "exe.txt" of a tab that read otherwise.
    const a = session('a', { title: 'notes\u202Etxt.exe' });
    const fromSnapshot = run(snapshot([a]));
    expect(fromSnapshot.tabs[0]!.title).toBe('notes\\u202etxt.exe');
    expect(fromSnapshot.sessions[0]!.title).toBe('notes\\u202etxt.exe');
    const updated = run(snapshot([]), created(session('a')), event({ type: 'pty.updated', info: { ...a, title: 'vim \u2066x\u2069' } }));
    expect(updated.tabs[0]!.title).toBe('vim \\u2066x\\u2069');
    expect(updated.sessions[0]!.title).toBe('vim \\u2066x\\u2069');
    const opened = run(snapshot([]), { type: 'created', requestId: 'r', info: userSession('u', { title: 'a\u200bb' }) });
    expect(opened.tabs[0]!.title).toBe('a\\u200bb');
  });

  it('adds a tab for an update of a session it never saw created, without stealing focus', () => {
    const state = run(snapshot([]), created(session('a')), event({ type: 'pty.updated', info: session('late') }));
    expect(ids(state)).toEqual(['a', 'late']);
    expect(state.activeId).toBe('a');
  });
});

describe('deckReducer: user sessions', () => {
  it('closes a user tab when its shell exits', () => {
    const u = userSession('u');
    const a = session('a');
    const state = run(snapshot([]), created(a), created(u), exited(u, 0));
    expect(ids(state)).toEqual(['a']);
    expect(state.activeId).toBe('a');
    expect(state.panelOpen).toBe(true);
  });

  it('closes the panel when the last tab closes', () => {
    const u = userSession('u');
    const state = run(snapshot([]), created(u), exited(u, 0));
    expect(state.tabs).toEqual([]);
    expect(state.panelOpen).toBe(false);
  });

  it('opens the panel while a new terminal is on its way and activates it when created', () => {
    let state = run(snapshot([]), { type: 'create-requested', requestId: 'r1' });
    expect(state.panelOpen).toBe(true);
    expect(state.pendingCreates).toEqual(['r1']);
    const u = userSession('u');
    state = deckReducer(state, { type: 'created', requestId: 'r1', info: u });
    state = deckReducer(state, created(u)); // the event may follow the reply: no duplicate
    expect(ids(state)).toEqual(['u']);
    expect(state.activeId).toBe('u');
    expect(state.pendingCreates).toEqual([]);
  });

  // The session's pty.created event and the reply to the request race: either may come first.
  it.each([
    ['the reply comes first', false],
    ['the event comes first', true],
  ])('a panel hidden while the new terminal was on its way stays hidden when it arrives, its tab not new (%s); a later request shows it again', (_, eventFirst) => {
    let state = run(snapshot([]), { type: 'create-requested', requestId: 'r1' }, { type: 'set-panel', open: false });
    const u = userSession('u');
    if (eventFirst) state = deckReducer(state, created(u));
    state = deckReducer(state, { type: 'created', requestId: 'r1', info: u });
    if (!eventFirst) state = deckReducer(state, created(u));
    expect(ids(state)).toEqual(['u']);
    expect(state.activeId).toBe('u');
    expect(state.panelOpen).toBe(false);
    // The developer asked for it: the tab count does not call it new.
    expect(state.tabs[0]!.unseen).toBe(false);

    state = deckReducer(state, { type: 'create-requested', requestId: 'r2' });
    state = deckReducer(state, { type: 'created', requestId: 'r2', info: userSession('v') });
    expect(state.activeId).toBe('v');
    expect(state.panelOpen).toBe(true);
  });

  it("a developer's shell that is already over when the panel first hears of it (a remote host's, relayed as created) gets no tab and opens no panel", () => {
    const over = userSession('gone', { status: 'exited', exitCode: 0, exitedAt: 50_000 });
    const state = run(snapshot([]), created(over));
    expect(ids(state)).toEqual([]);
    expect(state.panelOpen).toBe(false);
    expect(state.sessions.map((s) => s.id)).toEqual(['gone']);
  });

  it('closes the panel again and tells why when a create fails with no tabs', () => {
    const state = run(snapshot([]), { type: 'create-requested', requestId: 'r1' },
      { type: 'create-failed', requestId: 'r1', message: 'session limit reached' });
    expect(state.panelOpen).toBe(false);
    expect(state.notice).toBe('session limit reached');
  });
});

describe('deckReducer: removal and closing', () => {
  it('removes the tab and the session on pty.removed, returning to the tab active before it', () => {
    const state = run(snapshot([]), created(session('a')), created(session('b')), created(session('c')),
      { type: 'focus', id: 'c' }, { type: 'focus', id: 'b' }, removed('b'));
    expect(ids(state)).toEqual(['a', 'c']);
    expect(state.activeId).toBe('c');
    expect(state.sessions.map((s) => s.id)).toEqual(['a', 'c']);
  });

  it('when the active tab lingers out, the developer\'s previous tab comes back, not its neighbour', () => {
    const a = session('a');
    const state = run(snapshot([]), created(userSession('u')), created(a), created(session('n')),
      { type: 'focus', id: 'a' }, exited(a, 0), { type: 'linger-expired', id: 'a' });
    expect(ids(state)).toEqual(['u', 'n']);
    expect(state.activeId).toBe('u');
    expect(state.recent).toEqual(['u']);
  });

  it('activates a neighbour when the closed tab has no predecessor in the recent order', () => {
    const state = run(snapshot([session('a'), session('b')]), { type: 'close', id: 'b' });
    expect(state.activeId).toBe('a');
  });

  it('keeps the active tab when another one closes', () => {
    const state = run(snapshot([]), created(session('a')), created(session('b')), { type: 'close', id: 'a' });
    expect(state.activeId).toBe('b');
  });

  it('does not bring back a tab the developer closed, on later events or on reconnect', () => {
    const a = session('a');
    let state = run(snapshot([a]), { type: 'close', id: 'a' });
    expect(state.tabs).toEqual([]);
    expect(state.panelOpen).toBe(false);
    state = deckReducer(state, exited(a, 0));
    state = deckReducer(state, event({ type: 'pty.updated', info: a }));
    state = deckReducer(state, snapshot([a]));
    expect(state.tabs).toEqual([]);
    expect(state.dismissed).toEqual(['a']);
    // ...but the overview can open it again on purpose.
    state = deckReducer(state, { type: 'open', id: 'a' });
    expect(ids(state)).toEqual(['a']);
    expect(state.panelOpen).toBe(true);
    expect(state.dismissed).toEqual([]);
  });

  it('keeps an exited agent tab removed by terminal_close for its linger, marked gone, then closes it', () => {
    const a = session('a');
    let state = run(snapshot([]), created(a), created(session('b')), exited(a, 3, 50_000), removed('a'));
    expect(state.tabs[0]).toMatchObject({ id: 'a', status: 'exited', exitCode: 3, gone: true, lingerFrom: 50_000 });
    expect(state.sessions.map((s) => s.id)).toEqual(['b']);
    expect(lingeringTabs(state)).toEqual([{ id: 'a', since: 50_000 }]);
    // A reconnect to the same server does not know the session any more; the tab stays.
    state = deckReducer(state, snapshot([session('b')]));
    expect(ids(state)).toEqual(['a', 'b']);
    state = deckReducer(state, { type: 'linger-expired', id: 'a' });
    expect(ids(state)).toEqual(['b']);
    // Closed for good: nothing remembered to dismiss, since the session no longer exists.
    expect(state.dismissed).toEqual([]);
  });

  it('keeps a pinned exited agent tab after its session is removed, until the developer closes it', () => {
    const a = session('a');
    let state = run(snapshot([]), created(a), { type: 'pin', id: 'a', pinned: true, now: 1 }, exited(a, 0), removed('a'));
    expect(state.tabs[0]).toMatchObject({ id: 'a', pinned: true, gone: true });
    state = deckReducer(state, { type: 'linger-expired', id: 'a' });
    expect(ids(state)).toEqual(['a']);
    state = deckReducer(state, { type: 'close', id: 'a' });
    expect(state.tabs).toEqual([]);
    expect(state.panelOpen).toBe(false);
    expect(state.dismissed).toEqual([]);
  });

  it('still removes user tabs and running agent tabs on pty.removed, and gone tabs on a new server instance', () => {
    const a = session('a');
    const u = userSession('u');
    let state = run(snapshot([]), created(u), created(session('r')), removed('u'), removed('r'));
    expect(state.tabs).toEqual([]);
    state = run(snapshot([]), created(a), exited(a, 0), removed('a'), snapshot([], 'i2'));
    expect(state.tabs).toEqual([]);
  });

  it('clears the focused tab when it goes', () => {
    const state = run(snapshot([]), created(session('a')), { type: 'terminal-focus', id: 'a' }, removed('a'));
    expect(state.focusedId).toBeNull();
  });
});

describe('deckReducer: navigation and panel', () => {
  const three = () => run(snapshot([]), created(session('a')), created(session('b')), created(session('c')), { type: 'focus', id: 'c' });

  it('cycles next and previous with wrap-around', () => {
    let state = three();
    state = deckReducer(state, { type: 'next' });
    expect(state.activeId).toBe('a');
    state = deckReducer(state, { type: 'previous' });
    expect(state.activeId).toBe('c');
    state = deckReducer(state, { type: 'previous' });
    expect(state.activeId).toBe('b');
  });

  it('does nothing on next with no tabs', () => {
    const state = run(snapshot([]));
    expect(deckReducer(state, { type: 'next' })).toBe(state);
  });

  it('toggles the panel only when there is something to show', () => {
    expect(run(snapshot([]), { type: 'toggle-panel' }).panelOpen).toBe(false);
    let state = three();
    state = deckReducer(state, { type: 'toggle-panel' });
    expect(state.panelOpen).toBe(false);
    state = deckReducer(state, { type: 'toggle-panel' });
    expect(state.panelOpen).toBe(true);
  });

  it('focus on a tab opens the panel; focus on an unknown id changes nothing', () => {
    let state = deckReducer(three(), { type: 'set-panel', open: false });
    state = deckReducer(state, { type: 'focus', id: 'a' });
    expect(state.activeId).toBe('a');
    expect(state.panelOpen).toBe(true);
    expect(deckReducer(state, { type: 'focus', id: 'nope' })).toBe(state);
  });

  it('tracks which terminal has keyboard focus, only for tabs that exist', () => {
    let state = deckReducer(three(), { type: 'terminal-focus', id: 'b' });
    expect(state.focusedId).toBe('b');
    state = deckReducer(state, { type: 'terminal-focus', id: 'ghost' });
    expect(state.focusedId).toBeNull();
  });
});

describe('deckReducer: reconnect', () => {
  it('keeps tabs, order and the closed panel across a reconnect to the same instance', () => {
    const a = session('a');
    const b = session('b');
    let state = run(snapshot([a, b]), { type: 'focus', id: 'a' }, { type: 'toggle-panel' });
    state = deckReducer(state, snapshot([a, b]));
    expect(ids(state)).toEqual(['a', 'b']);
    expect(state.activeId).toBe('a');
    expect(state.panelOpen).toBe(false);
  });

  it('drops tabs whose session vanished and user tabs that exited while away', () => {
    const a = session('a');
    const u = userSession('u');
    let state = run(snapshot([a, u]));
    state = deckReducer(state, snapshot([{ ...u, status: 'exited', exitCode: 0, exitedAt: 59_000 }]));
    expect(state.tabs).toEqual([]);
    expect(state.panelOpen).toBe(false);
  });

  it('marks an agent tab that exited while away as lingering', () => {
    const a = session('a');
    let state = run(snapshot([a]));
    state = deckReducer(state, snapshot([{ ...a, status: 'exited', exitCode: 2, exitedAt: 59_500 }]));
    expect(state.tabs[0]).toMatchObject({ status: 'exited', exitCode: 2 });
  });

  it('adds an agent session created while away as a live one: in the background, a hidden panel stays hidden', () => {
    const u = userSession('u');
    let state = run(snapshot([u]), { type: 'toggle-panel' });
    const fresh = session('fresh');
    state = deckReducer(state, snapshot([u, fresh]));
    expect(ids(state)).toEqual(['u', 'fresh']);
    expect(state.activeId).toBe('u');
    expect(state.panelOpen).toBe(false);
    expect(state.tabs[1]!.unseen).toBe(true);
  });

  it('opens the panel on an agent session created while away when it had closed by itself', () => {
    const u = userSession('u');
    const fresh = session('fresh');
    const state = run(snapshot([u]), exited(u, 0), snapshot([fresh]));
    expect(state.activeId).toBe('fresh');
    expect(state.panelOpen).toBe(true);
    expect(state.tabs[0]!.unseen).toBe(false);
  });

  it('after a reload, restores pinned tabs, an exited one even past its linger', () => {
    const old = session('old', { status: 'exited', exitCode: 3, exitedAt: 1_000 });
    const live = session('live');
    const state = deckReducer(initialDeckState, {
      type: 'snapshot', sessions: [old, live], agents: [], instance: 'i1', now: 60_000, lingerMs: LINGER, pinnedIds: ['old', 'live'],
    });
    expect(ids(state)).toEqual(['old', 'live']);
    expect(state.tabs.map((tab) => tab.pinned)).toEqual([true, true]);
    expect(lingeringTabs(state)).toEqual([]);
  });

  it('forgets dismissals when the server instance changes', () => {
    const a = session('a');
    let state = run(snapshot([a]), { type: 'close', id: 'a' });
    state = deckReducer(state, snapshot([a], 'i2'));
    expect(state.dismissed).toEqual([]);
    expect(ids(state)).toEqual(['a']);
  });

  it('takes agents from the snapshot, then applies each arrival and departure', () => {
    const agent = { id: 'conn-1', name: 'claude-code', version: '1.0', transport: 'http' as const, connectedAt: 5 };
    const other = { ...agent, id: 'conn-2', name: 'codex' };
    let state = deckReducer(initialDeckState, { type: 'snapshot', sessions: [], agents: [agent], instance: 'i', now: 0, lingerMs: LINGER });
    expect(state.agents).toEqual([agent]);
    state = deckReducer(state, { type: 'agent-added', agent: other });
    expect(state.agents).toEqual([agent, other]);
    const renamed = { ...agent, version: '1.1' };
    state = deckReducer(state, { type: 'agent-added', agent: renamed });
    expect(state.agents).toEqual([renamed, other]);
    state = deckReducer(state, { type: 'agent-removed', id: 'conn-1' });
    expect(state.agents).toEqual([other]);
    const unchanged = state;
    expect(deckReducer(unchanged, { type: 'agent-removed', id: 'conn-1' })).toBe(unchanged);
    // A later snapshot (a reconnect) replaces whatever the changes built.
    state = deckReducer(state, { type: 'snapshot', sessions: [], agents: [agent], instance: 'i', now: 0, lingerMs: LINGER });
    expect(state.agents).toEqual([agent]);
  });
});

describe('deckReducer: waiting for input', () => {
  const attention = { kind: 'confirm' as const, prompt: 'Continue? [y/N] ', since: 70_000 };
  const updated = (info: SessionInfo) => event({ type: 'pty.updated', info });
  const tab = (state: DeckState, id: string) => state.tabs.find((candidate) => candidate.id === id);

  it("marks an agent's tab while its program waits, and clears the mark when output moves on", () => {
    const a = session('a');
    const waiting = run(snapshot([a]), updated({ ...a, attention }));
    expect(tab(waiting, 'a')?.attention).toEqual(attention);
    expect(waiting.sessions[0]?.attention).toEqual(attention);
    expect(tab(deckReducer(waiting, updated({ ...a, attention: null })), 'a')?.attention).toBeNull();
    // A server that predates attention sends none: no mark.
    expect(tab(deckReducer(waiting, updated(a)), 'a')?.attention).toBeNull();
  });

  it('comes with a snapshot, a creation and a tab reopened from the overview', () => {
    const a = session('a', { attention });
    expect(tab(run(snapshot([a])), 'a')?.attention).toEqual(attention);
    expect(tab(run(snapshot([]), created(a)), 'a')?.attention).toEqual(attention);
    const reopened = run(snapshot([session('a')]), { type: 'close', id: 'a' }, updated(a), { type: 'open', id: 'a' });
    expect(tab(reopened, 'a')?.attention).toEqual(attention);
  });

  it('ends with the session: an exited tab waits for nothing', () => {
    const a = session('a', { attention });
    expect(tab(run(snapshot([a]), exited(a, 1)), 'a')?.attention).toBeNull();
  });
});

describe('deckReducer: closing a disconnected agent\'s sessions together', () => {
  it('closes their tabs, keeps the others, and lets none come back as a tab', () => {
    const [a, b, c, own] = [session('a'), session('b'), session('c'), userSession('own')];
    const start = run(snapshot([a, b, c, own]), { type: 'close', id: 'b' }, { type: 'focus', id: 'a' });
    expect(ids(start)).toEqual(['a', 'c', 'own']);
    const closed = deckReducer(start, { type: 'close-sessions', ids: ['a', 'b', 'c'] });
    expect(ids(closed)).toEqual(['own']);
    expect(closed.activeId).toBe('own');
    expect([...closed.dismissed].sort()).toEqual(['a', 'b', 'c']);
    // Their closing sends pty.updated (closeRequested) while still running, then the exit.
    const after = [a, b, c].reduce(
      (state, info) => deckReducer(deckReducer(state, event({ type: 'pty.updated', info: { ...info, closeRequested: true } })), exited(info, null)),
      closed,
    );
    expect(ids(after)).toEqual(['own']);
    expect(after.sessions.map((info) => info.status)).toEqual(['exited', 'exited', 'exited', 'running']);
  });

  it('ignores ids it does not know', () => {
    const start = run(snapshot([session('a')]));
    expect(deckReducer(start, { type: 'close-sessions', ids: ['nope'] })).toBe(start);
  });
});
