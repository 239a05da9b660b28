import { describe, expect, it } from 'vitest';
import type { AgentInfo, SessionInfo } from '@ptydeck/contract';
import { groupSessions } from './session-groups.js';

let clock = 1;
function session(id: string, owner: string | null, overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id, source: owner === null ? 'user' : 'agent', owner, ownerName: owner === null ? null : `name-${owner}`, title: id, command: 'bash',
    args: [], cwd: '/w', pid: 1, cols: 80, rows: 24, status: 'running', exitCode: null, signal: null, createdAt: clock++, exitedAt: null,
    ...overrides,
  };
}
const agent = (id: string): AgentInfo => ({ id, name: `name-${id}`, version: null, transport: 'http', connectedAt: 0 });

describe('groupSessions', () => {
  it("puts each session under its connected agent, a gone agent's under that agent as disconnected, and the developer's apart", () => {
    const sessions = [
      session('a1', 'live'),
      session('g1', 'gone'),
      session('u1', null),
      session('g2', 'gone', { status: 'exited', exitCode: 0 }),
      session('o1', 'other-gone'),
      session('g3', 'gone'),
    ];
    const groups = groupSessions(sessions, [agent('live'), agent('idle')]);
    expect([...groups.byAgent].map(([id, list]) => [id, list.map((s) => s.id)])).toEqual([['live', ['a1']], ['idle', []]]);
    expect(groups.user.map((s) => s.id)).toEqual(['u1']);
    expect(groups.disconnected.map((g) => [g.owner, g.name, g.sessions.map((s) => s.id), g.running.map((s) => s.id)])).toEqual([
      ['gone', 'name-gone', ['g1', 'g2', 'g3'], ['g1', 'g3']],
      ['other-gone', 'name-other-gone', ['o1'], ['o1']],
    ]);
  });

  it("groups lost sessions apart, the developer's and any agent's, and nowhere else", () => {
    const lost = { status: 'lost' as const, lost: { foundAt: 5, unwrittenBytes: 0 } };
    const sessions = [session('a1', 'live'), session('la', 'live', lost), session('u1', null), session('lu', null, lost), session('lg', 'gone', lost), session('lc', 'chat:1', lost)];
    const groups = groupSessions(sessions, [agent('live')], ['chat:1']);
    expect(groups.lost.map((s) => s.id)).toEqual(['la', 'lu', 'lg', 'lc']);
    expect(groups.byAgent.get('live')!.map((s) => s.id)).toEqual(['a1']);
    expect(groups.byChat.get('chat:1')).toEqual([]);
    expect(groups.user.map((s) => s.id)).toEqual(['u1']);
    // A gone agent that left only lost sessions is not listed as disconnected: nothing of it runs, and the lost group shows them.
    expect(groups.disconnected).toEqual([]);
  });

  it('groups agent sessions without an owner or a name as an unknown agent', () => {
    const groups = groupSessions([session('x', 'gone', { owner: null, ownerName: null })], []);
    expect(groups.disconnected).toEqual([expect.objectContaining({ owner: '', name: 'unknown agent' })]);
  });

  it("puts a chat's agent's sessions under its chat, not among the disconnected", () => {
    const sessions = [session('c1', 'chat:1'), session('g1', 'gone'), session('c2', 'chat:1', { status: 'exited', exitCode: 0 })];
    const groups = groupSessions(sessions, [], ['chat:1', 'chat:2']);
    expect(groups.byChat.get('chat:1')!.map((s) => s.id)).toEqual(['c1', 'c2']);
    expect(groups.byChat.get('chat:2')).toEqual([]);
    expect(groups.disconnected.map((group) => group.owner)).toEqual(['gone']);
  });

  // Issue 32 item 9: a chat's agent connects to ptydeck's MCP server under its chat's owner id, so it is also a
  // connected agent; its shells were listed under a "Connected agents" entry and its chat's card said it had no shells.
  it("lists a chat's agent once, under its chat, though its MCP connection is a connected agent too", () => {
    const sessions = [session('c1', 'chat:1'), session('a1', 'live')];
    const groups = groupSessions(sessions, [agent('chat:1'), agent('live')], ['chat:1']);
    expect(groups.byChat.get('chat:1')!.map((s) => s.id)).toEqual(['c1']);
    expect(groups.agents.map((a) => a.id)).toEqual(['live']);
    expect([...groups.byAgent.keys()]).toEqual(['live']);
  });
});
