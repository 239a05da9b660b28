import { describe, expect, it } from 'vitest';
import { SessionCommands } from './session-commands.js';

/** The order bash's rcfile prints marks in: the command line mark (633;E) after C, or just before D. */

const key = 'k=0123456789abcdef';
function commands(): SessionCommands {
  const session = new SessionCommands({ session: 's1', agentName: 'agent', source: 'agent', maxRecords: 10, announcesKey: true });
  session.osc('6973;key;0123456789abcdef', 0, 10, 0);
  return session;
}

describe('SessionCommands', () => {
  it('a command line mark right after C names the running record, and its bytes are not output', () => {
    const session = commands();
    expect(session.osc(`133;C;${key}`, 100, 110, 1)).toMatchObject({ command: null, output: { start: 110 } });
    expect(session.osc(`633;E;echo hi;${key};h=1;cwd=/tmp`, 110, 150, 1)).toMatchObject({ command: 'echo hi', cwd: '/tmp', status: 'running', output: { start: 150 } });
    // A second line of the same paste names nothing.
    session.osc(`633;E;echo two;${key};h=1;cwd=/tmp`, 160, 200, 1);
    expect(session.osc(`133;D;0;${key}`, 300, 310, 2)).toMatchObject({ command: 'echo hi', exitCode: 0, output: { start: 150, end: 300 } });
  });

  it('a mark just before D (a line that ran only a subshell) names the record and leaves its output whole', () => {
    const session = commands();
    session.osc(`133;C;${key}`, 100, 110, 1);
    session.osc(`633;E;( echo sub );${key};h=1;cwd=/tmp`, 115, 150, 1);
    expect(session.osc(`133;D;0;${key}`, 150, 160, 2)).toMatchObject({ command: '( echo sub )', output: { start: 110, end: 115 } });
  });

  it('a mark before C still names the next command; an unkeyed one names nothing', () => {
    const session = commands();
    session.osc(`633;E;ls;${key};h=1;cwd=/`, 90, 100, 1);
    expect(session.osc(`133;C;${key}`, 100, 110, 1)).toMatchObject({ command: 'ls', output: { start: 110 } });
    expect(session.osc('633;E;rm -rf /;k=forged;h=1;cwd=/', 110, 130, 1)).toBeNull();
    expect(session.osc(`133;D;0;${key}`, 130, 140, 2)).toMatchObject({ command: 'ls', output: { start: 110, end: 130 } });
  });
});
