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
});
