/** Sessions, events and snapshots for the deck reducer's tests, with creation times that only go forward. */
import type { PtyEvent, SessionInfo } from '@ptydeck/contract';
import { deckReducer } from '../deck-reducer.js';
import { initialDeckState, type DeckAction, type DeckState } from '../deck-state.js';

export const LINGER = 5_000;
let clock = 1_000;

export function session(id: string, overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id, source: 'agent', owner: 'conn-1', ownerName: 'claude-code', title: `sh-${id}`, command: 'bash', args: [],
    cwd: '/w', pid: 100, cols: 80, rows: 24, status: 'running', exitCode: null, signal: null,
    createdAt: clock++, exitedAt: null, ...overrides,
  };
}
export const userSession = (id: string, overrides: Partial<SessionInfo> = {}) => session(id, { source: 'user', owner: null, ownerName: null, ...overrides });

export const event = (e: PtyEvent): DeckAction => ({ type: 'event', event: e });
export const created = (info: SessionInfo) => event({ type: 'pty.created', info });
export const exited = (info: SessionInfo, exitCode: number | null = 0, exitedAt = 50_000) =>
  event({ type: 'pty.exited', id: info.id, exitCode, signal: null, info: { ...info, status: 'exited', exitCode, exitedAt } });
export const removed = (id: string) => event({ type: 'pty.removed', id });
export const snapshot = (sessions: SessionInfo[], instance = 'i1', now = 60_000): DeckAction => ({
  type: 'snapshot', sessions, agents: [], instance, now, lingerMs: LINGER,
});

export function run(...actions: DeckAction[]): DeckState {
  return actions.reduce(deckReducer, initialDeckState);
}
export const ids = (state: DeckState) => state.tabs.map((tab) => tab.id);
