import type { CommandRecord } from '@ptydeck/contract';
import { describe, expect, it } from 'vitest';
import { actorLabel, actorNameFilter, durationLabel, filterCommands, fromSnapshot, NO_FILTER, sessionLabels, textError, upsertCommand } from './timeline-rows.js';
import { shownText } from '../lib/shown-text.js';

function record(n: number, over: Partial<CommandRecord> = {}): CommandRecord {
  return {
    id: `s1:${n}`,
    session: 's1',
    command: `cmd ${n}`,
    cwd: '/w',
    actor: { kind: 'agent', name: 'claude' },
    status: 'done',
    startedAt: n * 1000,
    endedAt: n * 1000 + 5,
    exitCode: 0,
    signal: null,
    output: { start: n * 100, end: n * 100 + 10 },
    ...over,
  };
}

describe('timeline rows', () => {
  it('merge a command as it starts and ends, in the order commands started', () => {
    const running = record(3, { status: 'running', endedAt: null, exitCode: null });
    let rows = fromSnapshot([], [record(2), record(1)]);
    rows = upsertCommand(rows, running);
    expect(rows.map((r) => r.id)).toEqual(['s1:1', 's1:2', 's1:3']);
    rows = upsertCommand(rows, { ...running, status: 'done', endedAt: 3100, exitCode: 1 });
    expect(rows.map((r) => [r.id, r.exitCode])).toEqual([['s1:1', 0], ['s1:2', 0], ['s1:3', 1]]);
    expect(upsertCommand(rows, record(0)).map((r) => r.id)).toEqual(['s1:0', 's1:1', 's1:2', 's1:3']);
  });

  it("a host's snapshot replaces that host's records only, and the host filter keeps one host's (or this machine's)", () => {
    const box = (n: number) => record(n, { id: `b1:${n}`, session: 'b1', host: 'box' });
    let rows = fromSnapshot([], [record(1), record(3)]);
    rows = fromSnapshot(rows, [box(2)], 'box');
    expect(rows.map((r) => r.id)).toEqual(['s1:1', 'b1:2', 's1:3']);
    // The remote's link came back: its snapshot now, ours untouched.
    rows = fromSnapshot(rows, [box(4)], 'box');
    expect(rows.map((r) => r.id)).toEqual(['s1:1', 's1:3', 'b1:4']);
    // This machine's panel socket came back: its snapshot replaces only its own.
    rows = fromSnapshot(rows, [record(5)]);
    expect(rows.map((r) => r.id)).toEqual(['b1:4', 's1:5']);
    expect(filterCommands(rows, { ...NO_FILTER, host: 'box' }).map((r) => r.id)).toEqual(['b1:4']);
    expect(filterCommands(rows, { ...NO_FILTER, host: '' }).map((r) => r.id)).toEqual(['s1:5']);
  });

  it('filter by actor, session, failure and text or /regex/', () => {
    const rows = [
      record(1),
      record(2, { actor: { kind: 'developer', name: null }, command: 'make test' }),
      record(3, { session: 's2', id: 's2:1', exitCode: 2, command: 'npm run build' }),
      record(4, { actor: { kind: 'agent', name: 'codex' }, status: 'lost', exitCode: null }),
    ];
    expect(filterCommands(rows, NO_FILTER)).toHaveLength(4);
    expect(filterCommands(rows, { ...NO_FILTER, actor: 'developer' }).map((r) => r.command)).toEqual(['make test']);
    expect(filterCommands(rows, { ...NO_FILTER, actor: actorNameFilter('codex') }).map((r) => r.id)).toEqual(['s1:4']);
    expect(filterCommands(rows, { ...NO_FILTER, actor: 'agent' })).toHaveLength(3);
    expect(filterCommands(rows, { ...NO_FILTER, session: 's2' }).map((r) => r.id)).toEqual(['s2:1']);
    expect(filterCommands(rows, { ...NO_FILTER, failedOnly: true }).map((r) => r.id)).toEqual(['s2:1', 's1:4']);
    expect(filterCommands(rows, { ...NO_FILTER, text: 'MAKE' }).map((r) => r.command)).toEqual(['make test']);
    expect(filterCommands(rows, { ...NO_FILTER, text: '/^npm run \\w+$/' }).map((r) => r.command)).toEqual(['npm run build']);
    expect(filterCommands(rows, { ...NO_FILTER, text: '/(/' })).toEqual([]);
    expect(textError('/(/')).toMatch(/not a valid/);
  });

  it("an agent's name never reads, or filters, as the developer", () => {
    // An MCP client names itself: "you" is the developer's label, "developer" the developer's filter.
    const rows = [record(1, { actor: { kind: 'agent', name: 'you' } }), record(2, { actor: { kind: 'agent', name: 'developer' } }), record(3, { actor: { kind: 'developer', name: null } })];
    expect(rows.map(actorLabel)).toEqual(['agent you', 'agent developer', 'you']);
    expect(actorLabel(record(4, { actor: { kind: 'mixed', name: 'you' } }))).toBe('agent you + you');
    expect(filterCommands(rows, { ...NO_FILTER, actor: 'developer' }).map((r) => r.id)).toEqual(['s1:3']);
    expect(filterCommands(rows, { ...NO_FILTER, actor: actorNameFilter('developer') }).map((r) => r.id)).toEqual(['s1:2']);
  });

  it('label actors and durations', () => {
    expect(actorLabel(record(1))).toBe('agent claude');
    expect(actorLabel(record(1, { actor: { kind: 'mixed', name: 'claude' } }))).toBe('agent claude + you');
    expect(actorLabel(record(1, { actor: { kind: 'unknown', name: null } }))).toBe('?');
    expect(actorLabel(record(1, { actor: { kind: 'developer', name: null } }))).toBe('you');
    expect([durationLabel(null), durationLabel(340), durationLabel(1200), durationLabel(180_000)]).toEqual(['running', '340 ms', '1.2 s', '3 min']);
  });
});

describe('shownText', () => {
  it("shows a row's direction-changing, invisible and control characters as escapes: a command reads as it ran", () => {
    // An agent ran `echo ok #<RLO> ~ fr- mr`; drawn as is, the Timeline showed "echo ok #rm -rf ~".
    expect(shownText('echo ok #\u202E ~ fr- mr')).toBe('echo ok #\\u202e ~ fr- mr');
    expect(shownText('a\u200bb\u2066c\u0007d\u009be\u2028f')).toBe('a\\u200bb\\u2066c\\u0007d\\u009be\\u2028f');
    expect(shownText('ls -la ~/proj  # día, 日本, 👩‍💻')).toBe('ls -la ~/proj  # día, 日本, 👩‍💻');
    expect(actorLabel(record(1, { actor: { kind: 'agent', name: '\u202Eedualc' } }))).toBe('agent \\u202eedualc');
  });
});

describe('sessionLabels', () => {
  it('adds the id to a title only where another session has the same one', () => {
    const titles: Record<string, string> = { 'aaaaaaaa-1': 'build', 'bbbbbbbb-2': 'build', 'cccccccc-3': 'tests' };
    const labels = sessionLabels(Object.keys(titles), (id) => titles[id]!);
    expect([...labels.values()]).toEqual(['build · aaaaaaaa', 'build · bbbbbbbb', 'tests']);
  });

  it("gives its id to a title that spells another session's label, which an agent chooses", () => {
    const titles: Record<string, string> = { 'aaaaaaaa-1': 'build', 'bbbbbbbb-2': 'build', 'cccccccc-3': 'build · aaaaaaaa', 'dddddddd-4': 'build · aaaaaaaa · cccccccc' };
    const labels = sessionLabels(Object.keys(titles), (id) => titles[id]!);
    expect([...labels.values()]).toEqual(['build · aaaaaaaa', 'build · bbbbbbbb', 'build · aaaaaaaa · cccccccc', 'build · aaaaaaaa · cccccccc · dddddddd']);
  });

  it('gives their ids to titles drawn alike though spelled apart (a zero-width joiner, a Hangul filler, a full-width letter, a space more)', () => {
    for (const agents of ['build\u200d', 'build\u3164', 'ｂuild', ' build ', 'bu\u00adild']) {
      const titles: Record<string, string> = { 'aaaaaaaa-1': 'build', 'bbbbbbbb-2': shownText(agents) };
      const labels = sessionLabels(Object.keys(titles), (id) => titles[id]!);
      expect([...labels.values()], JSON.stringify(agents)).toEqual(['build · aaaaaaaa', `${shownText(agents)} · bbbbbbbb`]);
    }
  });
});
