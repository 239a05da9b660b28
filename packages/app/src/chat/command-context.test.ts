import { describe, expect, it } from 'vitest';
import { commandContext } from './command-context.js';

const record = { command: 'ls /nope', cwd: '/w', status: 'done' as const, exitCode: 2, signal: null };

describe('commandContext', () => {
  it('names the command, where it ran and how it ended, then its output in a fence', () => {
    expect(commandContext(record, "ls: cannot access '/nope'")).toBe("Terminal command in /w (exit 2):\n```\n$ ls /nope\nls: cannot access '/nope'\n```");
    expect(commandContext({ ...record, status: 'running', exitCode: null, cwd: null }, '')).toMatch(/^Terminal command \(still running\):/);
    expect(commandContext({ ...record, exitCode: null, signal: 'SIGINT' }, '')).toMatch(/\(killed by SIGINT\)/);
  });

  it('keeps the head and tail of long output, and a fence the output cannot close', () => {
    const text = commandContext(record, `${'a'.repeat(100)}${'z'.repeat(100)}`, 20);
    expect(text).toContain(`${'a'.repeat(10)}\n... 180 characters omitted ...\n${'z'.repeat(10)}`);
    expect(commandContext(record, 'has ``` inside').split('\n')[1]).toBe('````');
    // A command line's own fence (a heredoc's line) cannot close it either.
    expect(commandContext({ ...record, command: "cat <<'EOF'\n`````\nEOF" }, '').split('\n')[1]).toBe('``````');
  });
});
