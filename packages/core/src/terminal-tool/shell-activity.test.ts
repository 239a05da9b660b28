import type { ShellActivity } from '@ptydeck/contract';
import { describe, expect, it } from 'vitest';
import { waitForInfo } from '../testing/session-waits.js';
import { createTerminalTool, type TerminalOwner } from './terminal-tool.js';
import { useRealShells } from '../testing/real-shells.js';

/**
 * What the panel learns of an agent's shell: whether it sits at its prompt or
 * runs a command, and how the last command ended, from the shell's own marks,
 * for the agent's commands and the developer's alike.
 */

const owner: TerminalOwner = { id: 'shell-activity' };
const shells = useRealShells('shell-activity', owner);

const is = (shell: ShellActivity) => (info: { shell?: ShellActivity | null }) =>
  info.shell?.state === shell.state && info.shell.lastExitCode === shell.lastExitCode;

describe('shell activity in the session info', () => {
  it('says a shell is idle with its last exit code once a run ends, and tells the panel only of changes', async () => {
    const shellUpdates: Array<ShellActivity | null | undefined> = [];
    const off = shells.facts.on('pty.updated', (event) => shellUpdates.push(event.info.shell));
    try {
      const run = await shells.tool.run(owner, { command: 'ls /; false' });
      expect(run).toMatchObject({ outcome: 'completed', exit_code: 1 });
      expect(shells.facts.get(run.id)?.shell).toEqual({ state: 'idle', lastExitCode: 1 });
      // Each update changed what it says: the first prompt, the command, its end.
      expect(shellUpdates).toEqual([
        { state: 'idle', lastExitCode: null },
        { state: 'running', lastExitCode: null },
        { state: 'idle', lastExitCode: 1 },
      ]);
      await shells.tool.close(owner, { id: run.id });
    } finally {
      off();
    }
  });

  it("follows a command the developer types into the agent's shell", async () => {
    const run = await shells.tool.run(owner, { command: 'true' });
    expect(shells.facts.get(run.id)?.shell).toEqual({ state: 'idle', lastExitCode: 0 });
    // The panel writes the developer's keys to the PTY; the command runs until the gate opens.
    const gate = shells.gate();
    shells.service.write(run.id, `sh -c 'read x < ${gate.path}; exit 7'\r`);
    await waitForInfo(shells.facts, run.id, is({ state: 'running', lastExitCode: 0 }));
    gate.open();
    await waitForInfo(shells.facts, run.id, is({ state: 'idle', lastExitCode: 7 }));
    await shells.tool.close(owner, { id: run.id });
  });

  it('claims nothing for a shell without marks, whose own commands nobody sees', async () => {
    const tool = createTerminalTool(shells.service, { shell: '/bin/sh' });
    const plain: TerminalOwner = { id: 'shell-activity-sh' };
    try {
      const run = await tool.run(plain, { command: 'false' });
      expect(run.exit_code).toBe(1);
      expect(shells.facts.get(run.id)?.shell ?? null).toBeNull();
    } finally {
      await tool.closeOwner(plain.id);
      tool.dispose();
    }
  });
});
