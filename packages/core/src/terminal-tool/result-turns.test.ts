import { readFile } from 'node:fs/promises';
import { afterEach, expect, it, vi } from 'vitest';
import { useRealShells } from '../testing/real-shells.js';
import { AgentTerminal } from './agent-terminal.js';
import { OutputView } from './output-view.js';
import { OwnedProcesses } from './owned-processes.js';
import { ProcessFacts } from '../pty/process-facts.js';

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
  const opened = OwnedProcesses.prototype.openedInTurns;
  vi.spyOn(OwnedProcesses.prototype, 'openedInTurns').mockImplementation(function (this: OwnedProcesses, ...args: Parameters<OwnedProcesses['openedInTurns']>) {
    looks.push(turned);
    return opened.apply(this, args);
  });
  return looks;
}

it('terminal_run renders its output and reads the process table in separate turns, and still reports both', async () => {
  const shell = await shells.tool.create(owner, {});
  const looks = watchTurns();
  const tables = watchTableTurns();
  const result = await shells.tool.run(owner, { id: shell.id, command: 'seq 1 20000' });
  expect(result).toMatchObject({ outcome: 'completed', exit_code: 0, truncated: true });
  expect(result.output.startsWith('1\n2\n')).toBe(true);
  expect(result.output).toMatch(/bytes omitted[\s\S]*\n19999\n20000/);
  expect(looks).toEqual([true]);
  // The session's first look reads the process table, between turns too (see watchTableTurns).
  expect(tables).toEqual([true]);
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

/**
 * For each process table terminal_list attributes: whether the loop ran an immediate since the table's last
 * stat line was looked at. A table read whole in the turn that attributes it (as terminal_list read one, for
 * 12 to 36 ms of the loop with bench figure 11's 1100 processes) does not allow it.
 */
function watchTableTurns(): boolean[] {
  const tables: boolean[] = [];
  let turned = true;
  const stat = ProcessFacts.prototype.stat;
  vi.spyOn(ProcessFacts.prototype, 'stat').mockImplementation(function (this: ProcessFacts<unknown>, ...args: Parameters<ProcessFacts<unknown>['stat']>) {
    if (turned) {
      turned = false;
      setImmediate(() => {
        turned = true;
      });
    }
    return stat.apply(this, args);
  });
  const retain = ProcessFacts.prototype.retain;
  vi.spyOn(ProcessFacts.prototype, 'retain').mockImplementation(function (this: ProcessFacts<unknown>, ...args: Parameters<ProcessFacts<unknown>['retain']>) {
    tables.push(turned);
    return retain.apply(this, args);
  });
  return tables;
}

it('terminal_list reads the process table between turns of the loop, and lists a job started before the call and not one ended before it', async () => {
  const shell = await shells.tool.create(owner, {});
  const started = await shells.tool.run(owner, { id: shell.id, command: 'sleep 995 & echo $!' });
  // An interactive shell says "[1] <pid>" first: the last line is the echo.
  const job = Number(/(\d+)\s*$/.exec(started.output)?.[1]);
  const tables = watchTableTurns();
  const listed: boolean[] = [];
  const backgroundOf = async () => {
    const from = tables.length;
    const result = await shells.tool.list(owner);
    listed.push(...tables.slice(from));
    return result.terminals.find((terminal) => terminal.id === shell.id)?.background?.map((proc) => proc.pid);
  };
  expect(await backgroundOf()).toContain(job);
  expect(await shells.tool.run(owner, { id: shell.id, command: `kill ${job}; wait ${job}` })).toMatchObject({ outcome: 'completed' });
  expect(await backgroundOf()).not.toContain(job);
  expect(listed).toEqual([true, true]);
});

it('a wait until a port reads the process table between turns too, and answers with the port', async () => {
  const shell = await shells.tool.create(owner, {});
  const server = "python3 -c \"import socket, time; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); print('port', s.getsockname()[1], flush=True); time.sleep(60)\"";
  await shells.tool.send(owner, { id: shell.id, text: `${server}\r`, wait_ms: 0 });
  const printed = await shells.tool.wait(owner, { id: shell.id, until: 'pattern', pattern: 'port \\d+', timeout_ms: 20_000 });
  const port = Number(/port (\d+)/.exec(printed.match ?? '')?.[1]);
  const tables = watchTableTurns();
  const waited = await shells.tool.wait(owner, { id: shell.id, until: 'port', port, timeout_ms: 20_000 });
  expect(waited).toMatchObject({ reason: 'port', ports_opened: [expect.objectContaining({ port, address: '127.0.0.1' })] });
  expect(tables.length).toBeGreaterThan(0);
  expect(tables.every((turned) => turned)).toBe(true);
  await shells.tool.send(owner, { id: shell.id, keys: ['Ctrl-C'], wait_ms: 0 });
});

/**
 * Each rendering of output for a result: how many raw bytes it covered, for how many at most, and how
 * many turns of the loop it let run (read() renders in the caller's turn; readInTurns waits a turn
 * before each window of a long range).
 */
function watchRenders(): Array<{ bytes: number; maxBytes: number; turns: number }> {
  const renders: Array<{ bytes: number; maxBytes: number; turns: number }> = [];
  const read = OutputView.prototype.read;
  vi.spyOn(OutputView.prototype, 'read').mockImplementation(function (this: OutputView, from: number, to: number, maxBytes: number) {
    renders.push({ bytes: to - from, maxBytes, turns: 0 });
    return read.call(this, from, to, maxBytes);
  });
  const readInTurns = OutputView.prototype.readInTurns;
  vi.spyOn(OutputView.prototype, 'readInTurns').mockImplementation(function (this: OutputView, from, to, maxBytes, yieldTurn) {
    const render = { bytes: to - from, maxBytes, turns: 0 };
    renders.push(render);
    return readInTurns.call(this, from, to, maxBytes, async () => {
      render.turns++;
      await yieldTurn();
    });
  });
  return renders;
}

it('terminal_send, terminal_read, terminal_wait and terminal_close render a long output (170 KB) a window per turn', async () => {
  const shell = await shells.tool.create(owner, {});
  const renders = watchRenders();
  /** Renders of more than 4 times what the result returns (those rendered whole are read's), each with its turns. */
  const long = () => renders.splice(0).filter((render) => render.bytes > render.maxBytes * 4).map((render) => render.turns);
  // The command tells by a FIFO once it has printed all: the host has read all but a PTY buffer of it.
  const printed = async () => {
    const gate = shells.gate();
    await shells.tool.send(owner, { id: shell.id, text: `seq 1 30000; echo printed > ${gate.path}\r`, wait_ms: 0 });
    await readFile(gate.path, 'utf8');
    renders.length = 0;
  };

  // First, on a shell at its prompt: the command the wait follows is this one, not one still ending.
  await shells.tool.send(owner, { id: shell.id, text: 'seq 1 30000\r', wait_ms: 0 });
  const waited = await shells.tool.wait(owner, { id: shell.id, until: 'exit' });
  expect(waited).toMatchObject({ reason: 'exit', exit_code: 0, truncated: true });
  expect(waited.output).toMatch(/\n29999\n30000\n?$/);
  expect(long()).toEqual([2]);

  // What a send returns begins at the caller's cursor: here, before what the command printed.
  await printed();
  const sent = await shells.tool.send(owner, { id: shell.id, text: 'true\r', wait_ms: 60_000 });
  expect(sent.output).toMatch(/^1\n2\n[\s\S]*bytes omitted/);
  expect(long()).toEqual([2]);

  await printed();
  const read = await shells.tool.read(owner, { id: shell.id, mode: 'new' });
  expect(read.output).toMatch(/bytes omitted/);
  expect(long()).toEqual([2]);

  await printed();
  const closed = await shells.tool.close(owner, { id: shell.id });
  expect(closed.output).toMatch(/bytes omitted/);
  expect(long()).toEqual([2]);
});

it('terminal_wait for a pattern scans a long output it finds already printed (170 KB) a piece of at most 64 KiB per turn', async () => {
  const shell = await shells.tool.create(owner, {});
  const gate = shells.gate();
  await shells.tool.send(owner, { id: shell.id, text: `seq 1 30000; echo printed > ${gate.path}\r`, wait_ms: 0 });
  await readFile(gate.path, 'utf8');
  const rendered: number[] = [];
  const renderText = AgentTerminal.prototype.renderText;
  vi.spyOn(AgentTerminal.prototype, 'renderText').mockImplementation(function (this: AgentTerminal, from: number, to: number) {
    rendered.push(to - from);
    return renderText.call(this, from, to);
  });
  const waited = await shells.tool.wait(owner, { id: shell.id, until: 'pattern', pattern: '^29999$' });
  expect(waited).toMatchObject({ reason: 'pattern', match: '29999' });
  expect(rendered.reduce((sum, bytes) => sum + bytes, 0)).toBeGreaterThan(128 * 1024);
  expect(Math.max(...rendered)).toBeLessThanOrEqual(64 * 1024);
});
