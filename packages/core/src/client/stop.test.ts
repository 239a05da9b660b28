import { describe, expect, it } from 'vitest';
import { agentSessionLines, stoppedLine } from './stop.js';

describe('ptydeck stop', () => {
  it("lists the agents' running sessions by title, printable, and by command where an older host sent no title", () => {
    const lines = agentSessionLines([
      { id: 'a1', ownerName: 'claude-code', command: '/bin/bash', title: 'npm run dev\u009b2J' },
      { id: 'a2', ownerName: 'x\x1b]52;c;?\x07', command: '/bin/bash', title: 'tests' },
      { id: 'a3', ownerName: null, command: 'sleep' },
    ]);
    expect(lines.split('\n')).toEqual(['  a1  claude-code  npm run dev 2J', '  a2  x ]52;c;?   tests', '  a3  agent  sleep']);
  });

  it('says what it ended in words, one or many', () => {
    expect(stoppedLine({ pid: 7, sessions: 1, chats: 0, agents: 1 })).toBe(
      'Stopped the ptydeck host (pid 7); ended 1 running session. 1 agent was connected; its `ptydeck mcp` starts no new host, and joins the one you start with `ptydeck`.',
    );
    expect(stoppedLine({ pid: 7, sessions: 3, chats: 2, agents: 2 })).toBe(
      'Stopped the ptydeck host (pid 7); ended 3 running sessions and 2 chats. 2 agents were connected; their `ptydeck mcp` start no new host, and join the one you start with `ptydeck`.',
    );
    expect(stoppedLine({ pid: 7, sessions: 0, chats: 1, agents: 0 })).toBe('Stopped the ptydeck host (pid 7); ended 0 running sessions and 1 chat. No agent was connected.');
  });
});
