// A thread that reads flooding terminals, so a flood runs at its writer's speed, not the event loop's.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { CTL, CTL_WORDS, type ReadThreadCommand, type ReadThreadReport } from './read-thread-protocol.js';
import { READ_THREAD_URL } from './read-thread-url.js';

/**
 * A thread that reads flooding terminals, so a flood runs at the speed its
 * writer and the kernel allow, not at the main thread's.
 *
 * Why: a PTY master hands out at most 4095 bytes per read(2), and the writer
 * (a `cat`) blocks as soon as the line discipline's small buffer is full. On
 * the event loop, every byte of a flood waits for the loop to come back to
 * that fd: between two reads the main thread also writes the previous output
 * to the panel's socket (loopback TCP does the receiver's work inside the
 * sender's call), runs the GC and serves everything else, and the writer sits
 * blocked the whole time. perf showed a quarter of both cores idle while a
 * flood reached a panel at 0.6 to 0.8 of the speed of a bare node-pty reader.
 * Here a thread that does nothing else reads with non-blocking read(2)s and
 * hands the main thread batches of up to 64 KiB in order, through a port.
 *
 * Only floods come here (pty-process.ts decides): a terminal with nothing to
 * read for QUIET_MS goes back to the event loop, whose epoll waits for it at
 * no cost, where this thread would have to poll. The main thread owns every
 * fd: before it closes one it takes it back with release(), which returns
 * only once the thread no longer reads it, and settles once its last batch
 * was handed on.
 */
export interface ReadThreadSink {
  /**
   * Bytes read, in order. A `reusable` chunk is a whole batch buffer, lent:
   * its holder gives its buffer back with reuse() once done with it (the
   * PTY service, once the log copied it and the listeners returned), and
   * nothing else keeps it.
   */
  data(chunk: Buffer, reusable: boolean): void;
  /** Nothing to read for a while: the terminal is the event loop's again. */
  quiet(): void;
  /** read(2) failed (EIO: every process closed the terminal and its output was read). */
  ended(code: string): void;
}

/** A terminal the thread reads. */
export interface ThreadRead {
  /** Stops reading for now; bytes already read still arrive. */
  hold(): void;
  go(): void;
  /**
   * Takes the terminal back: when this returns, the thread no longer reads it.
   * What it had read and not yet handed on still goes to the sink in turns,
   * as before (a flood that ends leaves up to 4 MiB queued, and handing that on
   * at once held the loop): the promise settles after the last of it, and
   * undefined means nothing was left.
   */
  release(): Promise<void> | undefined;
  /** Whether bytes the thread read for this terminal still wait to be handed on. */
  pending(): boolean;
}

export interface ReadThreadOptions {
  /** Starts the thread (tests pass their own). Default: read-thread-worker.js in a new Worker. */
  spawn?: (workerData: unknown, transferList: MessagePort[]) => Worker;
}

/** Bytes handed on per turn of the event loop (see receive()). */
const TURN_BYTES = 256 * 1024;
/**
 * The thread's young generation: two 4 MiB semi-spaces, what HOST_NODE_FLAGS
 * gave it before workers sized their own (see letWorkersSizeYoungGeneration).
 * Not smaller: with 2 MiB, figure 5's floods took 15 to 20% longer and typing
 * during them was slower in every pair measured (the bench README's "Memory").
 */
const READ_THREAD_LIMITS = { resourceLimits: { maxYoungGenerationSizeMb: 8 } } as const;
/** Longest release() waits for the thread to let go of a terminal; only a thread that died takes this long. */
const RELEASE_WAIT_MS = 2000;

export class ReadThread {
  private readonly ctl = new Int32Array(new SharedArrayBuffer(CTL_WORDS * Int32Array.BYTES_PER_ELEMENT));
  private readonly commands: MessagePort;
  private readonly reports: MessagePort;
  private readonly worker: Worker;
  private readonly sinks = new Map<number, ReadThreadSink>();
  /** Reports taken off the port and not yet handed on, oldest first. */
  private readonly queue: ReadThreadReport[] = [];
  /** Terminals taken back whose queued reports are still being handed on: settled after their last one. */
  private readonly releasing = new Map<number, () => void>();
  private handOn: NodeJS.Immediate | undefined;
  /** Batch buffers given back, sent to the thread together once a turn. */
  private returned: ArrayBuffer[] = [];
  private returning: NodeJS.Immediate | undefined;
  private nextSlot = 1;
  private dead = false;

  constructor(options: ReadThreadOptions = {}) {
    const commands = new MessageChannel();
    const reports = new MessageChannel();
    this.commands = commands.port1;
    this.reports = reports.port1;
    const workerData = { ctlBuffer: this.ctl.buffer, commands: commands.port2, reports: reports.port2 };
    const transfer = [commands.port2, reports.port2];
    this.worker = options.spawn ? options.spawn(workerData, transfer) : new Worker(READ_THREAD_URL, { workerData, transferList: transfer, ...READ_THREAD_LIMITS });
    this.reports.on('message', (report: ReadThreadReport) => this.receive(report));
    // Neither the thread nor its ports keep the process alive: sessions do. (After the listener:
    // adding a 'message' listener refs a port again.)
    this.worker.unref();
    this.reports.unref();
    this.worker.on('error', () => this.die());
    this.worker.on('exit', () => this.die());
  }

  /** False once the thread died or was disposed: terminals then stay on the event loop. */
  get alive(): boolean {
    return !this.dead;
  }

  /** Hands a terminal's non-blocking fd to the thread. The caller has stopped reading it and keeps it open until release(). */
  adopt(fd: number, sink: ReadThreadSink): ThreadRead {
    const slot = this.nextSlot++;
    this.sinks.set(slot, sink);
    this.command({ op: 'adopt', slot, fd });
    return {
      hold: () => this.command({ op: 'hold', slot }),
      go: () => this.command({ op: 'go', slot }),
      release: () => this.release(slot),
      pending: () => this.pending(slot),
    };
  }

  private pending(slot: number): boolean {
    // What the port holds is queued first, in order, as its listener would have.
    this.takeFromPort();
    if (this.queue.length === 0) return false;
    this.scheduleHandOn();
    return this.queue.some((report) => report.slot === slot && report.data !== null);
  }

  /**
   * A batch buffer lent with a reusable chunk, given back: the thread fills it
   * again instead of a new one. New buffers are new external memory to V8,
   * which counts it toward a full GC: on a heap the idle-time GC had shrunk,
   * a flood of new batches set off one full GC after another (bench/README.md
   * has the counts).
   */
  reuse(buffer: ArrayBuffer): void {
    if (this.dead) return;
    this.returned.push(buffer);
    if (this.returning) return;
    this.returning = setImmediate(() => {
      this.returning = undefined;
      const buffers = this.returned;
      this.returned = [];
      if (this.dead) return;
      this.commands.postMessage({ op: 'reuse', buffers } satisfies ReadThreadCommand, buffers);
      // The thread takes commands when CTL.wake moved; not notified: it needs the buffers only once it reads again.
      Atomics.add(this.ctl, CTL.wake, 1);
    });
    this.returning.unref();
  }

  dispose(): void {
    if (this.dead) return;
    // Terminals being released get what was read for them, now, so their close can go on.
    if (this.releasing.size > 0) this.handOnAll();
    for (const settle of this.releasing.values()) settle();
    this.releasing.clear();
    this.dead = true;
    void this.worker.terminate();
    clearImmediate(this.handOn);
    clearImmediate(this.returning);
    this.returned = [];
    this.queue.length = 0;
    this.commands.close();
    this.reports.close();
    this.sinks.clear();
  }

  private command(command: Exclude<ReadThreadCommand, { op: 'reuse' }>): void {
    if (this.dead || !this.sinks.has(command.slot)) return;
    this.commands.postMessage(command);
    Atomics.add(this.ctl, CTL.wake, 1);
    Atomics.notify(this.ctl, CTL.wake);
  }

  private release(slot: number): Promise<void> | undefined {
    if (!this.sinks.has(slot)) return undefined;
    if (!this.dead) {
      Atomics.store(this.ctl, CTL.released, 0);
      this.command({ op: 'release', slot });
      const deadline = performance.now() + RELEASE_WAIT_MS;
      while (Atomics.load(this.ctl, CTL.released) !== slot) {
        const left = deadline - performance.now();
        if (left <= 0) {
          this.die();
          break;
        }
        Atomics.wait(this.ctl, CTL.released, 0, left);
      }
    }
    // Everything the thread posted before it let go is on the port now: queued, in order, and handed on in turns.
    this.takeFromPort();
    if (!this.queue.some((report) => report.slot === slot)) {
      this.sinks.delete(slot);
      return undefined;
    }
    this.scheduleHandOn();
    return new Promise((resolve) => this.releasing.set(slot, resolve));
  }

  /**
   * Queues a report and hands reports on at the next turn, TURN_BYTES a turn.
   * Why not at once: Node's port delivers every message it holds in one
   * callback, including those that arrive meanwhile, and the thread posts
   * again as soon as one is taken, so a `cat` of megabytes in an agent's shell
   * went through the agent layer in one turn and held the loop (bench figure
   * 8). Reports wait here instead, and since outstanding bytes
   * count until handed on, the thread stops reading while they wait.
   */
  private receive(report: ReadThreadReport): void {
    this.queue.push(report);
    this.scheduleHandOn();
  }

  private scheduleHandOn(): void {
    this.handOn ??= setImmediate(() => {
      this.handOn = undefined;
      this.handOnSome(TURN_BYTES);
    });
  }

  private handOnSome(budget: number): void {
    let bytes = 0;
    while (bytes < budget && this.queue.length > 0) bytes += this.dispatch(this.queue.shift()!);
    if (this.queue.length > 0) this.scheduleHandOn();
  }

  /** Takes everything off the port and hands every queued report on, now: only for a thread that died. */
  private handOnAll(): void {
    this.takeFromPort();
    this.handOnSome(Infinity);
  }

  private takeFromPort(): void {
    for (let message = receiveMessageOnPort(this.reports); message; message = receiveMessageOnPort(this.reports)) {
      this.queue.push(message.message as ReadThreadReport);
    }
  }

  /** A released terminal's last queued report was handed on: it is the caller's alone now. */
  private settleRelease(slot: number): void {
    const settle = this.releasing.get(slot);
    if (!settle || this.queue.some((report) => report.slot === slot)) return;
    this.releasing.delete(slot);
    this.sinks.delete(slot);
    settle();
  }

  /** Hands one report to its terminal; returns the bytes it carried. */
  private dispatch(report: ReadThreadReport): number {
    const bytes = this.deliver(report);
    if (this.releasing.size > 0) this.settleRelease(report.slot);
    return bytes;
  }

  private deliver(report: ReadThreadReport): number {
    const sink = this.sinks.get(report.slot);
    const data = report.data;
    if (data !== null) {
      Atomics.sub(this.ctl, CTL.outstanding, data.byteLength);
      Atomics.notify(this.ctl, CTL.outstanding);
      const chunk = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      if (sink) sink.data(chunk, report.reusable);
      else if (report.reusable) this.reuse(chunk.buffer as ArrayBuffer);
      return data.byteLength;
    }
    // A terminal being released is no longer the thread's: it goes nowhere else but to its closer.
    if (this.releasing.has(report.slot)) return 0;
    this.sinks.delete(report.slot);
    if (report.quiet) sink?.quiet();
    else sink?.ended(report.end ?? 'EIO');
    return 0;
  }

  /**
   * The thread is gone (a crash): what it posted is handed on first, then every
   * terminal it read goes back to the event loop. Bytes it had read and not yet
   * posted (at most one batch a terminal, and the full ones it held to post
   * together) went with it.
   */
  private die(): void {
    if (this.dead) return;
    this.dead = true;
    this.handOnAll();
    for (const slot of [...this.releasing.keys()]) this.settleRelease(slot);
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    for (const sink of sinks) sink.quiet();
  }
}
