import { describe, expect, it } from 'vitest';
import { agentSessionLines } from './stop.js';

describe('ptydeck stop', () => {
  it("lists the agents' running sessions by title, printable, and by command where an older host sent no title", () => {
    const lines = agentSessionLines([
      { id: 'a1', ownerName: 'claude-code', command: '/bin/bash', title: 'npm run dev\u009b2J' },
      { id: 'a2', ownerName: 'x\x1b]52;c;?\x07', command: '/bin/bash', title: 'tests' },
      { id: 'a3', ownerName: null, command: 'sleep' },
    ]);
    expect(lines.split('\n')).toEqual(['  a1  claude-code  npm run dev 2J', '  a2  x ]52;c;?   tests', '  a3  agent  sleep']);
  });
});
