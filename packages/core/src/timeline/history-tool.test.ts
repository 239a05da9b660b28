import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpCaller } from '../testing/mcp-client.js';
import { useRealShells } from '../testing/real-shells.js';
import { registerHistoryTool } from './history-tool.js';
import { Timeline } from './timeline.js';
import { commandDone } from '../testing/command-waits.js';

/** terminal_history through the official MCP SDK client: an agent's own commands, their output, a search; nothing of another agent's. */

const shells = useRealShells('history-tool', { id: 'history-a' });
let timeline: Timeline;
let a: McpCaller;
let b: McpCaller;
beforeAll(async () => {
  timeline = new Timeline(shells.service);
  const extend = (id: string) => (server: Parameters<typeof registerHistoryTool>[0]) => registerHistoryTool(server, { timeline, service: shells.service, ownerId: () => id });
  a = await connectMcp(shells.tool, 'history-a', (server) => extend('history-a')(server));
  b = await connectMcp(shells.tool, 'history-b', (server) => extend('history-b')(server));
});
afterAll(async () => {
  await a.close();
  await b.close();
  await shells.tool.closeOwner('history-b');
  timeline.dispose();
});

describe('terminal_history', () => {
  it("lists the agent's own commands (the developer's line in its terminal marked theirs), reads one, searches; another agent sees none", async () => {
    const id = String((await a.ok('terminal_create', { cwd: shells.dir })).id);
    await a.ok('terminal_run', { id, command: 'echo alpha-1; echo alpha-2' });
    await a.ok('terminal_run', { id, command: 'cat /nonexistent-history' });
    await a.ok('terminal_run', { id, command: 'seq 1 20000' });
    const developer = commandDone(timeline, 'echo typed-by-dev');
    shells.service.write(id, 'echo typed-by-dev\r', 'user');
    await developer;

    const listed = await a.ok('terminal_history', {});
    expect(listed.commands.map((c: any) => [c.command, c.actor, c.cwd, c.state, c.exit_code])).toEqual([
      ['echo alpha-1; echo alpha-2', 'history-a', shells.dir, 'done', 0],
      ['cat /nonexistent-history', 'history-a', shells.dir, 'done', 1],
      ['seq 1 20000', 'history-a', shells.dir, 'done', 0],
      ['echo typed-by-dev', 'developer', shells.dir, 'done', 0],
    ]);
    for (const command of listed.commands) expect(command.duration_ms).toBeGreaterThanOrEqual(0);
    expect((await a.ok('terminal_history', { failed_only: true })).commands.map((c: any) => c.command)).toEqual(['cat /nonexistent-history']);
    expect((await a.ok('terminal_history', { pattern: '^echo' })).commands).toHaveLength(2);
    // A pattern that may backtrack runs off the loop, with the same answer.
    expect((await a.ok('terminal_history', { pattern: '^(e|c)+[a-z]*o ' })).commands.map((c: any) => c.command)).toEqual(['echo alpha-1; echo alpha-2', 'echo typed-by-dev']);
    expect((await a.ok('terminal_history', { since: new Date(Date.now() + 60_000).toISOString() })).commands).toEqual([]);

    const first = await a.ok('terminal_history', { command_id: listed.commands[0].id });
    expect(first.output).toBe('alpha-1\nalpha-2\n');
    const big = await a.ok('terminal_history', { command_id: listed.commands[2].id, max_bytes: 1024 });
    expect(big.output).toMatch(/^1\n2\n3\n[\s\S]*\n\.\.\. \d+ bytes omitted \.\.\.\n[\s\S]*19999\n20000\n$/);
    expect(big.omitted_bytes).toBeGreaterThan(100_000);

    const found = await a.ok('terminal_history', { search: 'alpha-2', context: 1 });
    expect(found.matches).toEqual([{ terminal: id, command_id: listed.commands[0].id, line: 'alpha-2', before: ['alpha-1'], after: [expect.any(String)] }]);

    // Another agent: none of it, and the ids answer as unknown ones.
    expect((await b.ok('terminal_history', {})).commands).toEqual([]);
    expect((await b.ok('terminal_history', { search: 'alpha' })).matches).toEqual([]);
    const refused = await b.call('terminal_history', { command_id: listed.commands[0].id });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/^No command .* in your terminals/);
    expect((await b.call('terminal_history', { id })).isError).toBe(true);
  });

  it('stops a search whose pattern backtracks without end, and the host goes on', async () => {
    const id = String((await a.ok('terminal_create', {})).id);
    await a.ok('terminal_run', { id, command: `printf 'a%.0s' $(seq 1 40); echo '!'` });
    const slow = await a.call('terminal_history', { id, search: '^(a+)+$' });
    expect(slow.isError).toBe(true);
    expect(slow.content[0]?.text).toMatch(/was stopped/);
    expect((await a.ok('terminal_run', { id, command: 'echo still-here' })).output).toBe('still-here\n');
  });

  it('keeps listing the commands of a terminal the agent closed, marked closed, without their output; to that agent alone', async () => {
    const id = String((await a.ok('terminal_create', { cwd: shells.dir })).id);
    await a.ok('terminal_run', { id, command: 'echo built; (exit 4)' });
    await a.ok('terminal_close', { id });
    const listed = (await a.ok('terminal_history', { id })).commands;
    expect(listed.map((c: any) => [c.command, c.exit_code, c.closed])).toEqual([['echo built; (exit 4)', 4, true]]);
    expect((await a.ok('terminal_history', { failed_only: true })).commands.map((c: any) => c.command)).toContain('echo built; (exit 4)');
    const read = await a.ok('terminal_history', { command_id: listed[0].id });
    expect(read.command).toMatchObject({ command: 'echo built; (exit 4)', closed: true });
    expect(read.output).toBe('');
    // Searching output skips it: its output went with the terminal.
    expect((await a.ok('terminal_history', { search: 'built' })).matches.filter((m: any) => m.terminal === id)).toEqual([]);
    // Another agent: nothing of it.
    expect((await b.ok('terminal_history', {})).commands).toEqual([]);
    expect((await b.call('terminal_history', { command_id: listed[0].id })).isError).toBe(true);
    expect((await b.call('terminal_history', { id })).isError).toBe(true);
  });
});
