import { afterEach, expect, it, vi } from 'vitest';
import { useRealShells } from '../testing/real-shells.js';
import { OutputView } from './output-view.js';
import { OwnedProcesses } from './owned-processes.js';

/**
 * A result's last steps each take a turn of the event loop of their own:
 * rendering the output, then reading the kernel's process and socket tables
 * for the ports the session opened (bench figure 8: together they held the
 * loop for 10 to 30 ms after a 4 MiB log). Checked by order, not by time: an
 * immediate queued as the output is rendered has run before the tables are
 * read, which a result built in one piece does not allow.
 */

const owner = { id: 'conn-result-turns' };
const shells = useRealShells('result-turns', owner);

afterEach(() => {
  vi.restoreAllMocks();
});

/** For each look at the process table: whether the loop ran an immediate since the output was last rendered. */
function watchTurns(): boolean[] {
  const looks: boolean[] = [];
  let turned = true;
  const read = OutputView.prototype.read;
  vi.spyOn(OutputView.prototype, 'read').mockImplementation(function (this: OutputView, ...args: Parameters<OutputView['read']>) {
    turned = false;
    setImmediate(() => {
      turned = true;
    });
    return read.apply(this, args);
  });
  const opened = OwnedProcesses.prototype.opened;
  vi.spyOn(OwnedProcesses.prototype, 'opened').mockImplementation(function (this: OwnedProcesses, ...args: Parameters<OwnedProcesses['opened']>) {
    looks.push(turned);
    return opened.apply(this, args);
  });
  return looks;
}

it('terminal_run renders its output and reads the process table in separate turns, and still reports both', async () => {
  const shell = await shells.tool.create(owner, {});
  const looks = watchTurns();
  const result = await shells.tool.run(owner, { id: shell.id, command: 'seq 1 20000' });
  expect(result).toMatchObject({ outcome: 'completed', exit_code: 0, truncated: true });
  expect(result.output.startsWith('1\n2\n')).toBe(true);
  expect(result.output).toMatch(/bytes omitted[\s\S]*\n19999\n20000/);
  expect(looks).toEqual([true]);
});

it('terminal_wait does the same, for a command it waited for and for one that had already finished', async () => {
  const shell = await shells.tool.create(owner, {});
  const looks = watchTurns();
  await shells.tool.send(owner, { id: shell.id, text: 'seq 1 20000 | tail -n 3\r', wait_ms: 0 });
  const waited = await shells.tool.wait(owner, { id: shell.id, until: 'exit' });
  expect(waited).toMatchObject({ reason: 'exit', exit_code: 0 });
  expect(waited.output).toContain('19999\n20000');
  const again = await shells.tool.wait(owner, { id: shell.id, until: 'exit' });
  expect(again).toMatchObject({ reason: 'exit', scope: 'command', exit_code: 0 });
  // The second result skips the look while the machine's TCP socket count stays as it was (other
  // processes here may move it): every look there is comes in a turn of its own.
  expect(looks[0]).toBe(true);
  expect(looks.every((turned) => turned)).toBe(true);
});
