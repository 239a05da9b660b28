import { afterEach, describe, expect, it, vi } from 'vitest';
import { SequenceScanner } from '../vt/index.js';
import type { TerminalOwner } from './terminal-tool.js';
import { useRealShells } from '../testing/real-shells.js';

/**
 * An agent session's output is scanned for escape sequences once, by the
 * service as it enters the log: the title, the shell-integration marks and the
 * modes the tool follows are handlers on that one scan, not scans of their own.
 */

const owner: TerminalOwner = { id: 'single-scan' };
const shells = useRealShells('single-scan', owner);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('one scan of an agent session', () => {
  it('passes every chunk through one scanner once, the one that gives the tool its marks and the tab its title', async () => {
    const { tool, service } = shells;
    const scan = vi.spyOn(SequenceScanner.prototype, 'scan');
    const chunks = new Map<string, Uint8Array[]>();
    const off = service.on('pty.data', (event) => chunks.set(event.id, [...(chunks.get(event.id) ?? []), event.data]));
    try {
      const shell = await tool.create(owner, {});
      const result = await tool.run(owner, { id: shell.id, command: "printf '\\033]0;scanned once\\007\\033[31mred\\033[0m\\n'" });
      expect(result).toMatchObject({ outcome: 'completed', exit_code: 0, output: 'red\n', state: 'idle_at_prompt' });
      expect(service.get(shell.id)?.title).toBe('scanned once');

      const seen = chunks.get(shell.id) ?? [];
      // One scanner for the session: every chunk passes through the same one.
      let sessionScanner: unknown;
      expect(seen.length).toBeGreaterThan(0);
      for (const chunk of seen) {
        const passes = scan.mock.calls.flatMap((call, index) => (call[1] === chunk ? [scan.mock.contexts[index]] : []));
        expect(passes).toHaveLength(1);
        sessionScanner ??= passes[0];
        expect(passes[0]).toBe(sessionScanner);
      }
      // Accounting: the chunks are the whole log, and the scanner has been over all of it.
      const total = seen.reduce((sum, chunk) => sum + chunk.length, 0);
      expect(total).toBe(service.read(shell.id).end);
      expect(service.scanPosition(shell.id).end).toBe(total);
    } finally {
      off();
    }
  });
});
