import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRecord } from '@ptydeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../testing/poll-until.js';
import { useRealShells } from '../testing/real-shells.js';
import type { TerminalOwner } from '../terminal-tool/terminal-tool.js';
import { Timeline } from './timeline.js';

/** Command records from real bash sessions run by the agent tool, and lines the developer types into them. */

const owner: TerminalOwner = { id: 'timeline-agent', name: 'claude-code' };
const shells = useRealShells('timeline', owner);
let timeline: Timeline;
beforeAll(() => {
  timeline = new Timeline(shells.service);
});
afterAll(() => timeline.dispose());

/** Resolves with the first record that `match` accepts, as it is published. */
function nextRecord(match: (record: CommandRecord) => boolean): Promise<CommandRecord> {
  return new Promise((resolve) => {
    const off = timeline.onCommand((record) => {
      if (!match(record)) return;
      off();
      resolve(record);
    });
  });
}

function outputOf(record: CommandRecord): string {
  const { data } = shells.service.read(record.session, { cursor: record.output.start, maxBytes: record.output.end! - record.output.start });
  return Buffer.from(data).toString('utf8');
}

describe('command records', () => {
  it("records the agent's commands and the developer's line in its shell, each with its actor, cwd and exit", async () => {
    const { tool, service, dir } = shells;
    const shell = await tool.create(owner, { cwd: dir });
    await tool.run(owner, { id: shell.id, command: 'echo hello' });
    await tool.run(owner, { id: shell.id, command: 'ls /nonexistent-timeline' });
    await tool.run(owner, { id: shell.id, command: 'cd /tmp && printf "a;b\\n"' });
    const developer = nextRecord((record) => record.session === shell.id && record.command === 'echo from-dev' && record.status === 'done');
    service.write(shell.id, 'echo from-dev\r', 'user');
    await developer;
    // Bytes a command writes into the mark's scratch file name no line, the one that wrote them included (with a
    // DEBUG trap of the user's, a line is named after it ran): the shell reads the line with a fork from then on.
    await tool.run(owner, { id: shell.id, command: 'trap true DEBUG' });
    await tool.run(owner, { id: shell.id, command: "printf '  99  fake' >&$__ptydeck_sf" });
    await tool.run(owner, { id: shell.id, command: 'echo after-junk' });

    const records = timeline.list({ sessions: new Set([shell.id]) });
    expect(records.map((r) => [r.command, r.actor, r.exitCode, r.status])).toEqual([
      ['echo hello', { kind: 'agent', name: 'claude-code' }, 0, 'done'],
      ['ls /nonexistent-timeline', { kind: 'agent', name: 'claude-code' }, 2, 'done'],
      ['cd /tmp && printf "a;b\\n"', { kind: 'agent', name: 'claude-code' }, 0, 'done'],
      ['echo from-dev', { kind: 'developer', name: null }, 0, 'done'],
      ['trap true DEBUG', { kind: 'agent', name: 'claude-code' }, 0, 'done'],
      ["printf '  99  fake' >&$__ptydeck_sf", { kind: 'agent', name: 'claude-code' }, 0, 'done'],
      ['echo after-junk', { kind: 'agent', name: 'claude-code' }, 0, 'done'],
    ]);
    expect(records.map((r) => r.cwd)).toEqual([dir, dir, dir, '/tmp', '/tmp', '/tmp', '/tmp']);
    for (const record of records) {
      expect(record.endedAt).toBeGreaterThanOrEqual(record.startedAt);
      expect(record.id).toMatch(new RegExp(`^${shell.id}:\\d+$`));
    }
    expect(outputOf(records[0]!)).toBe('hello\r\n');
    expect(outputOf(records[2]!)).toBe('a;b\r\n');
    expect(outputOf(records[3]!)).toBe('from-dev\r\n');
    expect(timeline.list({ sessions: new Set([shell.id]), failedOnly: true }).map((r) => r.command)).toEqual(['ls /nonexistent-timeline']);
    expect(timeline.list({ pattern: /^cd / }).map((r) => r.command)).toEqual(['cd /tmp && printf "a;b\\n"']);
    expect(timeline.get(records[1]!.id)).toEqual(records[1]);
    // Where the screen notes its place (a resync's gutter marks): every start and end in a range, ascending.
    const all = records.flatMap((r) => [r.output.start, r.output.end!]);
    expect(timeline.commandCursors(shell.id, 0, Number.MAX_SAFE_INTEGER)).toEqual([...new Set(all)].sort((a, b) => a - b));
    expect(timeline.commandCursors(shell.id, records[1]!.output.start, records[2]!.output.start)).toEqual(
      [records[1]!.output.start, records[1]!.output.end!, records[2]!.output.start].sort((a, b) => a - b),
    );
    // The output's arrival times are kept: the first command's output has one.
    expect(timeline.timesOf(shell.id)!.timeAt(records[0]!.output.start)).toBeGreaterThan(0);
  });

  it('a mark a program prints is output: it never becomes a record nor ends one', async () => {
    const { tool } = shells;
    const shell = await tool.create(owner, {});
    const forged = String.raw`printf '\e]633;E;rm -rf /\a\e]133;C\a\e]133;D;0\a'; (exit 3)`;
    await tool.run(owner, { id: shell.id, command: forged });
    const key = 'k=00000000000000000000000000000000';
    await tool.run(owner, { id: shell.id, command: String.raw`printf '\e]6973;key;00000000000000000000000000000000\a\e]633;E;rm -rf /;${key}\a\e]133;C;${key}\a'` });
    const records = timeline.list({ sessions: new Set([shell.id]) });
    expect(records.map((r) => [r.command, r.exitCode])).toEqual([
      [forged, 3],
      [String.raw`printf '\e]6973;key;00000000000000000000000000000000\a\e]633;E;rm -rf /;${key}\a\e]133;C;${key}\a'`, 0],
    ]);
    expect(timeline.list({ pattern: /^rm -rf/ })).toEqual([]);
  });

  it("a shell that announces no key takes none from its output: the developer's sh tab that cats a planted file records nothing", async () => {
    const { service, dir } = shells;
    // What an agent can leave in a workspace: a key, then keyed marks naming a command, its start and its end.
    const key = 'k=0123456789abcdef0123456789abcdef';
    const planted = join(dir, 'PLANTED.md');
    writeFileSync(planted, `readme\x1b]6973;key;${key.slice(2)}\x07\x1b]633;E;rm -rf ~;${key};h=1;cwd=/home/dev\x07\x1b]133;C;${key}\x07\x1b]133;D;0;${key}\x07planted-end\n`);
    // A developer's tab whose login shell is not bash (zsh, fish, sh) gets no init file, so no key.
    const tab = service.create({ source: 'user', command: '/bin/sh', args: ['-i'], cwd: dir });
    try {
      service.write(tab.id, `cat ${planted}; echo after-$((6*7))\r`, 'user');
      // The marks come before the line's last output, in the same scan.
      await until(() => Buffer.from(service.read(tab.id).data).toString('utf8').includes('after-42'), 'the file was printed');
      expect(timeline.list({ sessions: new Set([tab.id]) })).toEqual([]);
    } finally {
      await service.remove(tab.id);
    }
  });

  it('a line kept out of history is recorded without its text; a running command ends with its shell', async () => {
    const { tool, service } = shells;
    const shell = await tool.create(owner, {});
    await tool.run(owner, { id: shell.id, command: 'HISTIGNORE="secret*"' });
    await tool.run(owner, { id: shell.id, command: 'secret=1; true' });
    const ended = nextRecord((record) => record.session === shell.id && record.status === 'done' && record.command === 'exit 4');
    service.write(shell.id, 'exit 4\r', 'agent');
    expect(await ended).toMatchObject({ exitCode: 4, actor: { kind: 'agent' } });
    expect(timeline.list({ sessions: new Set([shell.id]) }).map((r) => r.command)).toEqual(['HISTIGNORE="secret*"', null, 'exit 4']);
  });
  it("a closed session's records stay, marked closed with its title, without output; the oldest closed go first", async () => {
    const { tool } = shells;
    const bounded = new Timeline(shells.service, { maxClosedRecords: 2 });
    try {
      const shell = await tool.create(owner, { title: 'audit-me' });
      await tool.run(owner, { id: shell.id, command: 'echo one' });
      await tool.run(owner, { id: shell.id, command: 'echo two; (exit 5)' });
      await tool.run(owner, { id: shell.id, command: 'echo three' });
      const told = nextRecord((record) => record.session === shell.id && record.closed !== undefined);
      await tool.close(owner, { id: shell.id });
      expect((await told).closed).toMatchObject({ title: 'audit-me' });

      const kept = timeline.list({ sessions: new Set([shell.id]) });
      expect(kept.map((r) => [r.command, r.exitCode, r.status, r.actor.name, r.closed?.title])).toEqual([
        ['echo one', 0, 'done', 'claude-code', 'audit-me'],
        ['echo two; (exit 5)', 5, 'done', 'claude-code', 'audit-me'],
        ['echo three', 0, 'done', 'claude-code', 'audit-me'],
      ]);
      expect(kept.every((r) => r.closed!.at >= r.endedAt!)).toBe(true);
      expect(timeline.get(kept[1]!.id)).toEqual(kept[1]);
      expect(timeline.list({ failedOnly: true, sessions: new Set([shell.id]) }).map((r) => r.command)).toEqual(['echo two; (exit 5)']);
      // Nothing of its output is kept or read: the session and its log are gone.
      expect(timeline.recording(shell.id, 'text')).toBeUndefined();
      expect(timeline.timesOf(shell.id)).toBeUndefined();
      // Past the bound, the oldest closed records go.
      expect(bounded.list({ sessions: new Set([shell.id]) }).map((r) => r.command)).toEqual(['echo two; (exit 5)', 'echo three']);
    } finally {
      bounded.dispose();
    }
  });

  it("names each line as it starts, fork-free, without changing what the line sees or writing where its output goes", async () => {
    const { tool, dir } = shells;
    const shell = await tool.create(owner, { cwd: dir });
    await tool.run(owner, { id: shell.id, command: '[[ ab =~ (b) ]]; mkdir -p names-sub' });
    const seen = await tool.run(owner, { id: shell.id, command: 'echo "${BASH_REMATCH[1]}:$_"' });
    await tool.run(owner, { id: shell.id, command: '( echo in-subshell )' });
    await tool.run(owner, { id: shell.id, command: '{ echo grouped; } > grouped.txt; cat grouped.txt' });
    // A command that takes the mark's scratch fd for a file of its own: the file keeps what it wrote.
    await tool.run(owner, { id: shell.id, command: 'eval "exec $__ptydeck_sf>mine.txt"; echo mine >&$__ptydeck_sf' });
    await tool.run(owner, { id: shell.id, command: 'cat mine.txt' });
    const records = timeline.list({ sessions: new Set([shell.id]) });
    expect(records.map((r) => r.command)).toEqual([
      '[[ ab =~ (b) ]]; mkdir -p names-sub',
      'echo "${BASH_REMATCH[1]}:$_"',
      '( echo in-subshell )',
      '{ echo grouped; } > grouped.txt; cat grouped.txt',
      'eval "exec $__ptydeck_sf>mine.txt"; echo mine >&$__ptydeck_sf',
      'cat mine.txt',
    ]);
    expect(seen.output).toBe('b:names-sub\n');
    // The pasted line is echoed once, not highlighted and drawn again: one terminal write less per line.
    const log = Buffer.from(shells.service.read(shell.id, { cursor: 0, maxBytes: 1 << 20 }).data).toString('utf8');
    expect(log).toContain('cat mine.txt');
    expect(log).not.toContain('\x1b[7m');
    expect(outputOf(records[1]!)).toBe('b:names-sub\r\n');
    expect(outputOf(records[2]!)).toBe('in-subshell\r\n');
    expect(outputOf(records[3]!)).toBe('grouped\r\n');
    expect(outputOf(records[5]!)).toBe('mine\r\n');
    expect(records.every((r) => r.cwd === dir && r.exitCode === 0)).toBe(true);
  });
});

describe('recordings', () => {
  it('hold output, markers, resizes and the exit, and nothing typed at a prompt with echo off', async () => {
    const { tool, service } = shells;
    const shell = await tool.create(owner, { cols: 90, rows: 20 });
    await tool.run(owner, { id: shell.id, command: 'echo before-resize' });
    service.resize(shell.id, 100, 25);
    const asked = tool.run(owner, { id: shell.id, command: `read -s -p 'Password: ' pw; echo; echo "got \${#pw} chars"` });
    await asked;
    const answered = nextRecord((record) => record.session === shell.id && record.status === 'done' && record.command !== null && record.command.startsWith('read -s'));
    service.write(shell.id, 'hunter2-secret\r', 'user');
    await answered;
    const exited = new Promise<void>((resolve) => service.on('pty.exited', (event) => event.id === shell.id && resolve()));
    service.write(shell.id, 'exit 5\r', 'agent');
    await exited;

    const cast = timeline.recording(shell.id, 'asciicast-v3')!;
    expect(cast).not.toContain('hunter2');
    const [header, ...events] = cast.trimEnd().split('\n').map((line) => JSON.parse(line) as [number, string, string]);
    expect(header).toMatchObject({ version: 3, term: { cols: 90, rows: 20 } });
    expect(events.filter((e) => e[1] === 'm').map((e) => e[2])).toEqual(['echo before-resize', `read -s -p 'Password: ' pw; echo; echo "got \${#pw} chars"`, 'exit 5']);
    expect(events.filter((e) => e[1] === 'r').map((e) => e[2])).toEqual(['100x25']);
    expect(events.at(-1)).toEqual([expect.any(Number), 'x', '5']);
    const output = events.filter((e) => e[1] === 'o').map((e) => e[2]).join('');
    expect(output).toContain('got 14 chars');
    // The log, without ptydeck's own marks: the shell's key they carry is not for a file that gets shared.
    const log = Buffer.from(service.read(shell.id).data).toString('utf8');
    const key = /\x1b\]6973;key;([0-9a-f]{32})\x07/.exec(log)![1]!;
    expect(log).toContain(`k=${key}`);
    expect(output).not.toContain(key);
    expect(output).not.toContain('\x1b]6973;');
    // Each left out for a CAN, which draws nothing and ends any sequence it would otherwise have joined.
    expect(output).toBe(log.replace(/\x1b\](?:6973;[^\x07]*|[16]33;[^\x07]*k=[^\x07]*)\x07/g, '\x18'));
    expect(output).toContain('\x1b]7;file://');
    const v2 = timeline.recording(shell.id, 'asciicast-v2')!.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(v2[0]).toMatchObject({ version: 2, width: 90, height: 20 });
    expect(v2.slice(1).every((e: [number, string]) => e[1] !== 'x')).toBe(true);
  });
});

