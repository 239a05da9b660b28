import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRecord } from '@ptydeck/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { openSessionStore, type SessionStore } from '../persist/session-store.js';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { restoreAndRecord } from '../server/session-persistence.js';
import { createTerminalTool, type TerminalTool } from '../terminal-tool/terminal-tool.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { connectMcp } from '../testing/mcp-client.js';
import { registerHistoryTool } from './history-tool.js';
import { Timeline } from './timeline.js';

/** Command records kept by the session store with the output: a host that dies leaves them to the next. */

const OWNER = { id: 'timeline-kept', name: 'kept-agent' };
const hosts: Array<{ service: PtyService; tool: TerminalTool; store: SessionStore; timeline: Timeline; stop: () => void }> = [];
afterAll(async () => {
  for (const { service, tool, store, timeline, stop } of hosts) {
    stop();
    store.dispose();
    timeline.dispose();
    tool.dispose();
    await service.dispose();
  }
});

async function startHost(dir: string, reports: string[] = []) {
  const service = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
  const tool = createTerminalTool(service);
  const timeline = new Timeline(service);
  const report = (error: unknown, context?: string) => reports.push(`${context}: ${String(error)}`);
  const store = openSessionStore({ dir, flushMs: 60_000, onError: report });
  const stop = await restoreAndRecord(store, service, tool, report, timeline);
  const host = { service, tool, store, timeline, stop };
  hosts.push(host);
  return host;
}

function started(timeline: Timeline, command: string): Promise<CommandRecord> {
  return new Promise((resolve) => {
    const off = timeline.onCommand((record) => {
      if (record.command !== command) return;
      off();
      resolve(record);
    });
  });
}

describe('command records across a host restart', () => {
  it('come back with their session, readable; the one running ends lost', async () => {
    const dir = join(fileTempDir('ptydeck-timeline-persist-'), 'sessions');
    const before = await startHost(dir);
    const shell = await before.tool.create(OWNER, {});
    await before.tool.run(OWNER, { id: shell.id, command: 'echo kept-output' });
    await before.tool.run(OWNER, { id: shell.id, command: 'false' });
    const running = started(before.timeline, 'sleep 600');
    await before.tool.run(OWNER, { id: shell.id, command: 'sleep 600', timeout_ms: 1 });
    await running;
    await before.store.flush();
    const kept = before.timeline.list({ sessions: new Set([shell.id]) });
    // The host dies here: nothing after this is recorded.
    before.stop();

    const after = await startHost(dir);
    const records = after.timeline.list({ sessions: new Set([shell.id]) });
    expect(records.map((r) => [r.command, r.status, r.exitCode])).toEqual([
      ['echo kept-output', 'done', 0],
      ['false', 'done', 1],
      ['sleep 600', 'lost', null],
    ]);
    expect(records.map((r) => r.id)).toEqual(kept.map((r) => r.id));
    expect(records[0]!.actor).toEqual({ kind: 'agent', name: 'kept-agent' });
    const first = records[0]!;
    const { data } = after.service.read(shell.id, { cursor: first.output.start, maxBytes: first.output.end! - first.output.start });
    expect(Buffer.from(data).toString()).toBe('kept-output\r\n');
    expect(after.timeline.timesOf(shell.id)!.timeAt(first.output.start)).toBe(before.timeline.timesOf(shell.id)!.timeAt(first.output.start));

    // The agent is told they are what a file said, as terminal_read says of restored output: untrusted input.
    const agent = await connectMcp(after.tool, OWNER.id, (server) => registerHistoryTool(server, { timeline: after.timeline, service: after.service, ownerId: () => OWNER.id }));
    try {
      const listed = await agent.call('terminal_history', {});
      expect(listed.structuredContent!.commands.map((c: { restored?: true }) => c.restored)).toEqual([true, true, true]);
      expect(listed.content[0]!.text).toContain('restored from the record an earlier host left on disk');
      const one = await agent.ok('terminal_history', { command_id: first.id });
      expect(one.command.restored).toBe(true);
      expect((await agent.ok('terminal_history', { search: 'kept-output' })).matches[0].restored).toBe(true);
    } finally {
      await agent.close();
    }
  });

  it('a timeline file that is not one costs the session its records only', async () => {
    const dir = join(fileTempDir('ptydeck-timeline-planted-'), 'sessions');
    const before = await startHost(dir);
    const shell = await before.tool.create(OWNER, {});
    await before.tool.run(OWNER, { id: shell.id, command: 'echo planted' });
    await before.store.flush();
    before.stop();
    const file = readdirSync(dir).find((name) => name.endsWith('.cmds'))!;
    writeFileSync(join(dir, file), JSON.stringify({ version: 1, commands: [{ id: 'x', command: 'rm -rf /' }], times: [] }));
    const reports: string[] = [];
    const after = await startHost(dir, reports);
    expect(after.service.get(shell.id)?.status).toBe('lost');
    expect(after.timeline.list({ sessions: new Set([shell.id]) })).toEqual([]);
    expect(reports.join('\n')).toContain('are not restored');
  });

  it("a closed session's records come back with the next host; a file that is not such records is set aside", async () => {
    const dir = join(fileTempDir('ptydeck-timeline-closed-'), 'sessions');
    const before = await startHost(dir);
    const shell = await before.tool.create(OWNER, { title: 'gone-soon' });
    await before.tool.run(OWNER, { id: shell.id, command: 'echo before-close' });
    await before.tool.run(OWNER, { id: shell.id, command: '(exit 9)' });
    await before.tool.close(OWNER, { id: shell.id });
    await before.store.flush();
    const kept = before.timeline.list({ sessions: new Set([shell.id]) });
    expect(kept).toHaveLength(2);
    before.stop();

    const after = await startHost(dir);
    const back = after.timeline.list({ sessions: new Set([shell.id]) });
    // Marked as what a file on disk said: the next host cannot tell them from planted ones.
    const asRestored = kept.map((record) => ({ ...record, closed: { ...record.closed!, restored: true } }));
    expect(back).toEqual(asRestored);
    expect(back.map((r) => [r.command, r.exitCode, r.closed?.title])).toEqual([
      ['echo before-close', 0, 'gone-soon'],
      ['(exit 9)', 9, 'gone-soon'],
    ]);
    // The next host's turn writes them again, and a second restart finds them once.
    await after.store.flush();
    after.stop();
    const again = await startHost(dir);
    expect(again.timeline.list({ sessions: new Set([shell.id]) })).toEqual(asRestored);
    again.stop();

    // A file planted in their place that is not closed records: set aside with a line in the log, nothing shown.
    writeFileSync(join(dir, 'closed-commands'), JSON.stringify({ version: 1, commands: [{ id: 'x:1', command: 'rm -rf /' }] }));
    const reports: string[] = [];
    const planted = await startHost(dir, reports);
    expect(planted.timeline.list()).toEqual([]);
    expect(existsSync(join(dir, 'closed-commands'))).toBe(false);
    const aside = readdirSync(join(dir, 'set-aside')).find((name) => name.startsWith('closed-commands'))!;
    expect(readFileSync(join(dir, 'set-aside', aside), 'utf8')).toContain('rm -rf /');
    expect(reports.join('\n')).toContain("not closed sessions' command records");
  });

  it("planted closed records come back marked restored, and draw nothing: an agent's name as the host shows one, no controls", async () => {
    const dir = join(fileTempDir('ptydeck-timeline-closed-planted-'), 'sessions');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    const planted: CommandRecord = {
      id: 'gone:1',
      session: 'gone',
      command: 'echo \u001b]52;c;cm0gLXJmIH4=\u0007 ok\u009b2J',
      cwd: '/home/dev/\u001b[8mproject',
      // A right-to-left override reads "claude" backwards: a badge shown as another agent's, or blank.
      actor: { kind: 'agent', name: '\u202Eedualc\u200b' },
      status: 'done',
      startedAt: Date.now() - 1000,
      endedAt: Date.now(),
      exitCode: 0,
      signal: null,
      output: { start: 0, end: 10 },
      closed: { title: 'build\u001b]0;x\u0007', at: Date.now() },
    };
    const blank: CommandRecord = { ...planted, id: 'gone:2', actor: { kind: 'agent', name: '\u200b\u2066 ' } };
    // Dated ahead of this host: the newest of every listing, it would hold the panel's snapshot (the newest 5000) for itself.
    const future: CommandRecord = { ...planted, id: 'gone:3', startedAt: Date.now() + 10 * 365 * 86_400_000 };
    writeFileSync(join(dir, 'closed-commands'), JSON.stringify({ version: 1, commands: [planted, blank, future] }));
    const host = await startHost(dir);
    expect(host.timeline.list().map((record) => record.id)).toEqual(['gone:1', 'gone:2']);
    const [one, two] = host.timeline.list();
    expect(one!.closed).toEqual({ title: 'build]0;x', at: planted.closed!.at, restored: true });
    expect(one!.actor.name).toBe('edualc');
    expect(two!.actor.name).toBe('unknown');
    expect(one!.command).toBe('echo ]52;c;cm0gLXJmIH4= ok2J');
    expect(one!.cwd).toBe('/home/dev/[8mproject');
    host.stop();
  });

  it("a restored session's records, once it is closed, stay marked restored", async () => {
    const dir = join(fileTempDir('ptydeck-timeline-closed-restored-'), 'sessions');
    const before = await startHost(dir);
    const shell = await before.tool.create(OWNER, {});
    await before.tool.run(OWNER, { id: shell.id, command: 'echo from-before' });
    await before.store.flush();
    before.stop();
    // A planted closed record naming the open (restored) session: its owner's terminal_history would list it as its own.
    const [own] = before.timeline.list({ sessions: new Set([shell.id]) });
    const planted = { ...own!, id: `${shell.id}:99`, command: 'planted', closed: { title: 't', at: Date.now() } };
    writeFileSync(join(dir, 'closed-commands'), JSON.stringify({ version: 1, commands: [planted, { ...planted, id: 'elsewhere:1' }] }));
    const after = await startHost(dir);
    expect(after.service.get(shell.id)?.restored).toBe(true);
    // Its owner's history has the session's own records only; the panel sees the planted one, marked restored; one
    // whose id is not of its session's form is not taken.
    // Told apart by id: under load the shell's command-line mark was sometimes missed, leaving the real record's command null.
    expect(after.timeline.list({ sessions: new Set([shell.id]) }).map((record) => record.id)).toEqual([own!.id]);
    expect(after.timeline.list().map((record) => [record.id, record.closed?.restored])).toEqual([
      [own!.id, undefined],
      [planted.id, true],
    ]);
    await after.service.remove(shell.id);
    const closed = after.timeline.list().filter((record) => record.closed && record.id !== planted.id);
    expect(closed.map((record) => [record.id, record.closed?.restored])).toEqual([[own!.id, true]]);
    after.stop();
  });
});
