import { afterAll, describe, expect, it } from 'vitest';
import type { LostRecord } from '../pty/lost-record.js';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { lostRecord } from '../testing/lost-records.js';
import { createTerminalTool, type TerminalTool } from './terminal-tool.js';
import { connectMcp } from '../testing/mcp-client.js';

/**
 * An agent's terminal after its host died: the next host restores it (as the
 * session store hands it over) and the agent, under the same owner, finds it
 * lost, readable from where it had read, and takes no input into it.
 */
const OWNER = 'agent-same-bridge';
const toDispose: Array<{ service: PtyService; tool: TerminalTool }> = [];
afterAll(async () => {
  for (const { service, tool } of toDispose) {
    tool.dispose();
    await service.dispose();
  }
});

function host(): { service: PtyService; tool: TerminalTool } {
  const service = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
  const made = { service, tool: createTerminalTool(service) };
  toDispose.push(made);
  return made;
}

/** What the session store would have written of the session, as it stands (status running). */
function recordOf(service: PtyService, id: string, agentCursor: number | null, unwritten: number): LostRecord & { agentCursor: number | null } {
  const log = service.read(id);
  return { info: service.get(id)!, start: log.cursor, output: log.data, readEnd: log.end + unwritten, agentCursor };
}

describe('a lost terminal, to its agent', () => {
  it('is listed and read as lost from where the agent had read, refuses input, is another agent\'s to nobody, and closes', async () => {
    const before = host();
    const agent = await connectMcp(before.tool, OWNER);
    const made = await agent.ok('terminal_create', {});
    const id = String(made.id);
    expect((await agent.ok('terminal_run', { id, command: 'echo read-before-MARKER' })).output).toContain('read-before-MARKER');
    // The developer types into it; the agent has not read this yet when the host dies.
    before.service.write(id, 'echo unread-after-$((6*7))\r');
    await waitForOutput(before.service, id, 'unread-after-42');
    const lost = recordOf(before.service, id, before.tool.agentCursorOf(id), 9);
    expect(lost.agentCursor).toBeGreaterThan(0);
    await agent.close();

    const after = host();
    const info = after.service.restore(lost);
    after.tool.adoptRestored(info, lost.agentCursor);
    const again = await connectMcp(after.tool, OWNER);

    const listed = await again.ok('terminal_list');
    expect(listed.terminals).toEqual([expect.objectContaining({ id, state: 'lost' })]);

    // Carries on from the agent's cursor: the unread command, not what it was already handed.
    const fresh = await again.ok('terminal_read', { id });
    expect(fresh).toMatchObject({ id, mode: 'new', state: 'lost', unwritten_bytes: 9, restored: true });
    expect(fresh.output).toContain('unread-after-42');
    expect(fresh.output).not.toContain('read-before-MARKER');
    expect((await again.ok('terminal_read', { id })).output).toBe('');
    const all = await again.ok('terminal_read', { id, mode: 'all' });
    expect(all.output).toContain('read-before-MARKER');
    expect((await again.ok('terminal_read', { id, mode: 'screen' })).output).toContain('unread-after-42');
    // Nothing more will come: a wait ends at once, as on an exited terminal.
    expect(await again.ok('terminal_wait', { id, until: 'exit', timeout_ms: 60_000 })).toMatchObject({ reason: 'exit', state: 'lost' });
    const text = await again.call('terminal_read', { id });
    expect(text.content[0]?.text).toMatch(/lost \(its process is gone: ptydeck's host stopped while it ran; at least its last 9 bytes of output were never saved; it takes no input\) \(restored from the record an earlier host left on disk/);

    for (const [name, args] of [
      ['terminal_run', { id, command: 'echo nope' }],
      ['terminal_send', { id, text: 'echo nope', keys: ['Enter'] }],
    ] as const) {
      const refused = await again.call(name, args);
      expect(refused.isError, name).toBe(true);
      expect(refused.content[0]?.text).toMatch(/process is gone/);
    }

    const stranger = await connectMcp(after.tool, 'agent-someone-else');
    for (const name of ['terminal_read', 'terminal_close']) {
      const refused = await stranger.call(name, { id });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(/^No such terminal/);
    }
    expect((await stranger.ok('terminal_list')).terminals).toEqual([]);
    await stranger.close();

    const removed = new Promise<string>((resolve) => after.service.on('pty.removed', (event) => resolve(event.id)));
    const closed = await again.ok('terminal_close', { id });
    expect(closed).toMatchObject({ id, output: '' });
    expect(await removed).toBe(id);
    expect(after.service.get(id)).toBeUndefined();
    expect((await again.ok('terminal_list')).terminals).toEqual([]);
    await again.close();
  });

  it('comes back exited when it had exited, and leaves the developer\'s sessions to the developer', async () => {
    const after = host();
    const exited = after.service.restore(
      lostRecord({ id: 'agent-exited', source: 'agent', owner: OWNER, status: 'exited', exitCode: 2, exitedAt: 1 }, 'done\r\n', { unwrittenBytes: null }),
    );
    after.tool.adoptRestored(exited, null);
    const developers = after.service.restore(lostRecord({ id: 'dev-tab' }, 'scrollback\r\n'));
    after.tool.adoptRestored(developers, null);
    const agent = await connectMcp(after.tool, OWNER);
    expect((await agent.ok('terminal_list')).terminals).toEqual([expect.objectContaining({ id: 'agent-exited', state: 'exited', process_exit_code: 2 })]);
    expect(await agent.ok('terminal_read', { id: 'agent-exited' })).toMatchObject({ state: 'exited', process_exit_code: 2, output: expect.stringContaining('done') });
    expect(after.tool.agentCursorOf('dev-tab')).toBeNull();
    await agent.close();
  });

  it('says what a figure of 0 unsaved bytes means, not that the last 0 bytes were lost', async () => {
    const after = host();
    const lost = after.service.restore(lostRecord({ id: 'agent-saved-all', source: 'agent', owner: OWNER }, 'all saved\r\n', { unwrittenBytes: 0 }));
    after.tool.adoptRestored(lost, null);
    const agent = await connectMcp(after.tool, OWNER);
    const text = (await agent.call('terminal_read', { id: 'agent-saved-all' })).content[0]?.text ?? '';
    expect(text).not.toMatch(/0 bytes/);
    expect(text).toMatch(/what it printed after the host last saved it .* is missing, if it printed anything then/);
    await agent.close();
  });

  it("keeps an agent's restored terminals however many records carry its owner: none is removed for another", async () => {
    const after = host();
    const removed: string[] = [];
    after.service.on('pty.removed', (event) => removed.push(event.id));
    // Its real terminal, oldest, then more exited records under its owner than an owner keeps: planted ones, for all anyone can tell.
    const real = lostRecord({ id: 'agent-real', source: 'agent', owner: OWNER, createdAt: 1 }, 'real\r\n');
    const planted = Array.from({ length: 40 }, (_, i) =>
      lostRecord({ id: `agent-planted-${i}`, source: 'agent', owner: OWNER, status: 'exited', exitCode: 0, exitedAt: 10 + i, createdAt: 2 + i }, 'planted\r\n'),
    );
    for (const record of [real, ...planted]) after.tool.adoptRestored(after.service.restore(record), null);
    const agent = await connectMcp(after.tool, OWNER);
    expect(removed).toEqual([]);
    expect((await agent.ok('terminal_list')).terminals).toHaveLength(41);
    expect(await agent.ok('terminal_read', { id: 'agent-real' })).toMatchObject({ state: 'lost', restored: true, output: expect.stringContaining('real') });
    await agent.close();
  });
});

