/**
 * What the read thread (read-thread-worker.ts) and the main thread
 * (read-thread.ts) share: the layout of their control words and the messages
 * on their two ports. The main thread sends commands; the thread sends reports,
 * in the order it read, on a port the main thread may also drain synchronously
 * (receiveMessageOnPort) when it takes a terminal back.
 */

/** Indices into the shared Int32Array of control words. */
export const CTL = {
  /** Bumped by the main thread after each command it posts (and notified, so a sleeping thread wakes for it): the thread takes commands only when it moved. */
  wake: 0,
  /** Bytes the thread posted that the main thread has not yet handed on; past MAX_OUTSTANDING_BYTES the thread stops reading. */
  outstanding: 1,
  /** The slot the thread last gave back on request; the main thread waits on it (Atomics.wait) while it takes a terminal back. */
  released: 2,
} as const;
export const CTL_WORDS = 3;

/**
 * Bytes read and not yet handed on, across all terminals, before the thread
 * waits for the main thread: how far a flood may run ahead of the main
 * thread's handling of it (read-thread.ts hands it on a slice per turn).
 */
export const MAX_OUTSTANDING_BYTES = 4 * 1024 * 1024;
/** One message carries up to this many bytes of one terminal (16 reads of the line discipline's 4095). */
export const BATCH_BYTES = 64 * 1024;
/**
 * Full batches posted together (report-poster.ts): the main thread wakes once
 * for 512 KiB of a flood, which it hands on in two turns (read-thread.ts).
 * Eight, not four: with the panel's acks once a task, its voluntary switches
 * per MB delivered fell from 22 to 13 (bench/README.md, "Acks once a task").
 */
export const BATCHES_PER_POST = 8;
/** Batch buffers the thread keeps for reuse; more come back only while floods outgrow them. */
export const MAX_SPARE_BATCHES = MAX_OUTSTANDING_BYTES / BATCH_BYTES;
/** A terminal with nothing to read for this long goes back to the event loop, which waits for it at no cost. */
export const QUIET_MS = 20;

export type ReadThreadCommand =
  /** Read `fd` (non-blocking, already open) as terminal `slot` until told otherwise. */
  | { op: 'adopt'; slot: number; fd: number }
  /** Stop reading the terminal for now (a flood waiting its turn); `go` reads again. */
  | { op: 'hold'; slot: number }
  | { op: 'go'; slot: number }
  /** Post what was read, forget the terminal and store `slot` in CTL.released. */
  | { op: 'release'; slot: number }
  /** Batches (whole BATCH_BYTES buffers) the main thread is done with, to be filled again. */
  | { op: 'reuse'; buffers: ArrayBuffer[] };

/**
 * What the thread posts about a terminal, in order: bytes read, or that the
 * thread forgot it. Every kind has every field, in the same order, so all
 * reports share one shape on the main thread: the code that hands them on
 * was compiled for the data reports it had seen, and a terminal's first
 * quiet or end report, of another shape, threw that code away
 * (bench/README.md, "The delivery path's deoptimizations").
 */
export interface ReadThreadReport {
  slot: number;
  /** Bytes read, or null. `reusable`: `data` is the start of a whole batch buffer, to be handed back with a `reuse` command once used. */
  data: Uint8Array | null;
  reusable: boolean;
  /** Nothing to read for QUIET_MS: the thread forgot the terminal; the event loop reads it again. */
  quiet: boolean;
  /** read(2) failed (EIO once every process closed the terminal and its output is read): the thread forgot it. Else null. */
  end: string | null;
}

export function dataReport(slot: number, data: Uint8Array, reusable: boolean): ReadThreadReport {
  return { slot, data, reusable, quiet: false, end: null };
}

export function quietReport(slot: number): ReadThreadReport {
  return { slot, data: null, reusable: false, quiet: true, end: null };
}

export function endReport(slot: number, end: string): ReadThreadReport {
  return { slot, data: null, reusable: false, quiet: false, end };
}
