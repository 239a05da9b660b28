import { describe, expect, it } from 'vitest';
import type { LeftoverSession } from '@ptydeck/contract';
import { LEFT_RUNNING_SHOWN, leftoverMeta, leftRunningView } from './left-running-view.js';

const leftover = (id: string, ...starts: number[]): LeftoverSession => ({
  id,
  title: id,
  source: 'user',
  ownerName: null,
  known: false,
  processes: starts.map((startedAt, index) => ({ pid: 100 + index, command: 'sleep 900', startedAt })),
  ports: [],
});

describe('leftRunningView', () => {
  it('collapses a long list into its newest cards and "and N more" (issue 32.1: 40 cards pushed the agents off screen)', () => {
    const sessions = Array.from({ length: 40 }, (_, index) => leftover(`s${index}`, 1000 + index));
    const view = leftRunningView(sessions, false);
    expect(view.shown.map((session) => session.id)).toEqual(['s39', 's38', 's37']);
    expect(view.shown).toHaveLength(LEFT_RUNNING_SHOWN);
    expect(view.more).toBe(37);
  });

  it('shows every card once expanded, newest first by the latest start among its processes', () => {
    const view = leftRunningView([leftover('old', 5), leftover('mixed', 1, 30), leftover('new', 20), leftover('older', 2), leftover('oldest', 0)], true);
    expect(view.shown.map((session) => session.id)).toEqual(['mixed', 'new', 'old', 'older', 'oldest']);
    expect(view.more).toBe(0);
  });

  it('shows a list one card over the limit whole: "and 1 more" would take the room of the card', () => {
    const sessions = Array.from({ length: LEFT_RUNNING_SHOWN + 1 }, (_, index) => leftover(`s${index}`, index));
    expect(leftRunningView(sessions, false)).toMatchObject({ more: 0, shown: { length: LEFT_RUNNING_SHOWN + 1 } });
    expect(leftRunningView([...sessions, leftover('s9', 9)], false).more).toBe(2);
    expect(leftRunningView([], false)).toEqual({ shown: [], more: 0 });
  });
});

describe('leftoverMeta', () => {
  it("says whose a card's processes were: a chat's agent whose host is gone, an agent's shell, or the developer's terminal", () => {
    expect(leftoverMeta({ ...leftover('chat-1'), kind: 'chat', source: 'agent' })).toBe("a chat's agent · its ptydeck host is gone");
    expect(leftoverMeta({ ...leftover('s1'), source: 'agent', ownerName: 'claude-code', known: true })).toBe("claude-code's shell · exited");
    expect(leftoverMeta(leftover('s2'))).toBe('your terminal · closed');
  });
});
