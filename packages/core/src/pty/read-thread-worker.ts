/**
 * The read thread: reads flooding terminals so their writers never wait on
 * the main thread (see read-thread.ts for why).
 *
 * A loop of non-blocking read(2)s, one per terminal per pass so floods share
 * the thread evenly. A read the line discipline has nothing for returns
 * EAGAIN at once; when a whole pass read nothing the thread sleeps, briefly at
 * first and then longer, and a command wakes it. Reads gather into batches of
 * up to BATCH_BYTES per terminal, posted in order, full ones a few at a time
 * (ReportPoster). The thread never closes a descriptor: the main thread owns
 * every fd and takes it back (release) before it closes it.
 */
import { readSync } from 'node:fs';
// perf_hooks's, not the global: even optimized, this loop read the global `performance` through V8's
// LoadGlobalIC stub on every read (bench/README.md, "Figure 2's read thread, per read").
import { performance } from 'node:perf_hooks';
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { BufferPool } from './buffer-pool.js';
import { ReportPoster } from './report-poster.js';
import {
  BATCH_BYTES,
  CTL,
  dataReport,
  endReport,
  MAX_OUTSTANDING_BYTES,
  MAX_SPARE_BATCHES,
  QUIET_MS,
  quietReport,
  type ReadThreadCommand,
  type ReadThreadReport,
} from './read-thread-protocol.js';

interface Terminal {
  readonly slot: number;
  readonly fd: number;
  held: boolean;
  batch: Uint8Array;
  used: number;
  /** When a read last returned bytes (or the terminal was adopted or let go): QUIET_MS after it, it goes back. */
  lastDataAt: number;
}

/** Sleeps after a pass that read nothing: short while a flood is only catching its breath, longer after. */
const MIN_SLEEP_MS = 0.05;
const MAX_SLEEP_MS = 2;

const { ctlBuffer, commands, reports } = workerData as { ctlBuffer: SharedArrayBuffer; commands: MessagePort; reports: MessagePort };
const ctl = new Int32Array(ctlBuffer);
const terminals = new Map<number, Terminal>();
/** Batch buffers: the ones the main thread gave back are filled again before any new one is made. */
const batches = new BufferPool(BATCH_BYTES, MAX_SPARE_BATCHES);

/** Full batches go in groups (see ReportPoster); everything posted goes through it, so order holds. */
const poster = new ReportPoster((report, transfer) => reports.postMessage(report, transfer));

/**
 * Posts what the terminal gathered. A full batch goes as it is (transferred,
 * lent: the main thread gives the buffer back once the session's log copied
 * it, see ReadThread.reuse; posted with the next full ones, see ReportPoster)
 * and the terminal takes a spare one; a small one goes as a copy of its bytes,
 * and the batch stays: a stream of a few KiB a millisecond, caught up on every
 * pass, would otherwise hand the main thread a 64 KiB buffer per few KiB.
 */
function flush(terminal: Terminal): void {
  const used = terminal.used;
  if (used === 0) return;
  Atomics.add(ctl, CTL.outstanding, used);
  terminal.used = 0;
  if (used < BATCH_BYTES / 2) {
    const data = terminal.batch.slice(0, used);
    poster.post(dataReport(terminal.slot, data, false), [data.buffer]);
    return;
  }
  const data = terminal.batch.subarray(0, used);
  terminal.batch = batches.take();
  poster.batch(dataReport(terminal.slot, data, true));
}

function forget(terminal: Terminal, last: ReadThreadReport | undefined): void {
  flush(terminal);
  batches.give(terminal.batch);
  terminals.delete(terminal.slot);
  if (last) poster.post(last);
  // A released terminal's last batches are on the port before the main thread is told (see 'release').
  else poster.flush();
}

function obey(command: ReadThreadCommand): void {
  if (command.op === 'reuse') {
    for (const buffer of command.buffers) batches.give(new Uint8Array(buffer));
    return;
  }
  const terminal = terminals.get(command.slot);
  switch (command.op) {
    case 'adopt':
      terminals.set(command.slot, { slot: command.slot, fd: command.fd, held: false, batch: batches.take(), used: 0, lastDataAt: performance.now() });
      return;
    case 'hold':
      if (terminal) {
        flush(terminal);
        poster.flush();
        terminal.held = true;
      }
      return;
    case 'go':
      if (terminal) {
        terminal.held = false;
        terminal.lastDataAt = performance.now();
      }
      return;
    case 'release':
      if (terminal) forget(terminal, undefined);
      // Stored after the last batch is posted: once the main thread sees it, that batch is on its port.
      Atomics.store(ctl, CTL.released, command.slot);
      Atomics.notify(ctl, CTL.released);
      return;
  }
}

/** Reads one chunk of `terminal`; true if it had bytes. */
function readOnce(terminal: Terminal): boolean {
  let bytes: number;
  // A read the line discipline has nothing for is an exception (EAGAIN), built with a stack trace that
  // nobody reads and that was half its cost: none is taken around the read (the code is all this uses).
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    bytes = readSync(terminal.fd, terminal.batch, terminal.used, BATCH_BYTES - terminal.used, null);
  } catch (error) {
    Error.stackTraceLimit = stackTraceLimit;
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    if (code === 'EAGAIN') {
      // Caught up: what was gathered goes out now rather than waiting for a full batch.
      flush(terminal);
      if (performance.now() - terminal.lastDataAt >= QUIET_MS) forget(terminal, quietReport(terminal.slot));
      return false;
    }
    forget(terminal, endReport(terminal.slot, code));
    return false;
  }
  Error.stackTraceLimit = stackTraceLimit;
  if (bytes === 0) {
    forget(terminal, endReport(terminal.slot, 'EOF'));
    return false;
  }
  terminal.used += bytes;
  terminal.lastDataAt = performance.now();
  // The line discipline hands out at most 4095 bytes a read: a batch without room for one more goes out.
  if (BATCH_BYTES - terminal.used < 4096) flush(terminal);
  return true;
}

let sleepMs = MIN_SLEEP_MS;
/**
 * CTL.wake when the commands were last taken: every command is posted before
 * CTL.wake is bumped, so the port is looked at only when it moved, not on
 * every pass (a call into the port's C++ and its lock: 1 to 3% of the
 * thread's samples during a flood).
 */
let takenAt = Number.NaN;
for (;;) {
  const wake = Atomics.load(ctl, CTL.wake);
  if (wake !== takenAt) {
    takenAt = wake;
    for (let message = receiveMessageOnPort(commands); message; message = receiveMessageOnPort(commands)) {
      obey(message.message as ReadThreadCommand);
    }
  }
  let readers = 0;
  let read = false;
  if (Atomics.load(ctl, CTL.outstanding) < MAX_OUTSTANDING_BYTES) {
    for (const terminal of terminals.values()) {
      if (terminal.held) continue;
      readers++;
      if (readOnce(terminal)) read = true;
    }
  } else {
    // The main thread is behind: everything held goes, and the thread waits for it to take what was posted (it notifies as it does).
    poster.flush();
    Atomics.wait(ctl, CTL.outstanding, Atomics.load(ctl, CTL.outstanding), MAX_SLEEP_MS);
    continue;
  }
  if (read) {
    sleepMs = MIN_SLEEP_MS;
    continue;
  }
  // Nothing to read anywhere: sleep until a command, or (while some terminal may get output) a short while.
  poster.flush();
  if (readers === 0) Atomics.wait(ctl, CTL.wake, wake);
  else {
    Atomics.wait(ctl, CTL.wake, wake, sleepMs);
    sleepMs = Math.min(sleepMs * 2, MAX_SLEEP_MS);
  }
}
