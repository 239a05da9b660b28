import { describe, expect, it } from 'vitest';
import { readStat } from '../proc/proc-fs.js';
import { ProcessFacts } from './process-facts.js';

describe.runIf(process.platform === 'linux')('ProcessFacts', () => {
  it('reads a command line again that was empty (a read between exec naming the program and setting its arguments)', () => {
    const facts = new ProcessFacts();
    const stat = readStat(process.pid)!;
    const reads = ['', 'python3 -m http.server 0'];
    const read = () => reads.shift() ?? 'read too often';
    expect(facts.command(process.pid, stat, read)).toBe('');
    expect(facts.command(process.pid, stat, read)).toBe('python3 -m http.server 0');
    // Once known, it is kept for as long as the program runs.
    expect(facts.command(process.pid, stat, read)).toBe('python3 -m http.server 0');
  });

  it("takes a process's stat line from a table read in the same turn, as a fresh read", () => {
    const facts = new ProcessFacts();
    const stat = readStat(process.pid)!;
    const read = { ...stat, name: 'from-the-table' };
    expect(facts.stat(process.pid, true, Date.now(), new Map([[process.pid, read]]))).toBe(read);
    // Gone from the table: gone.
    expect(facts.stat(process.pid, true, Date.now(), new Map())).toBeUndefined();
  });

  it('reads an empty environment again while the program is new (an exec caught before its environment is set), and an unlabelled one once', () => {
    const facts = new ProcessFacts();
    const stat = readStat(process.pid)!;
    const reads: Array<{ id: string } | null | undefined> = [null, { id: 'session-1' }];
    const read = () => reads.shift() as never;
    expect(facts.label(process.pid, stat, read)).toBeUndefined();
    expect(facts.label(process.pid, stat, read)).toEqual({ id: 'session-1' });
    const other = { ...stat, name: 'other-program' };
    let unlabelled = 0;
    const none = () => {
      unlabelled++;
      return undefined;
    };
    facts.label(process.pid, other, none);
    facts.label(process.pid, other, none);
    expect(unlabelled).toBe(1);
  });
});
