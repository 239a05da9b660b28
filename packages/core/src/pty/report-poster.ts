/**
 * How the read thread posts its reports: full batches in groups of
 * BATCHES_PER_POST, everything else at once, always in the order read.
 *
 * Why group: every post to an idle main thread wakes it (a context switch on
 * the two cores the flood's writer, the kernel's tty worker and the read
 * thread share), and it then hands on what the port holds. A flood's 64 KiB
 * batches posted one by one woke it about 16 times a MB; posted four at a
 * time, the main thread spent about a quarter less CPU per MB delivered
 * (bench/README.md, "Batches posted four at a time"; eight now, see
 * BATCHES_PER_POST). The batches stay 64 KiB,
 * the size the session's log adopts without a copy.
 *
 * A group is posted early whenever waiting could hold bytes back: before any
 * other report (so a terminal's bytes and its end stay in order), and when the
 * thread is about to sleep, wait for the main thread or let a terminal go
 * (flush()).
 */
import { BATCHES_PER_POST, type ReadThreadReport } from './read-thread-protocol.js';

export class ReportPoster {
  private readonly held: ReadThreadReport[] = [];

  constructor(
    private readonly send: (report: ReadThreadReport, transfer?: ArrayBuffer[]) => void,
    private readonly perPost = BATCHES_PER_POST,
  ) {}

  /** A full batch (its buffer transferred): posted once `perPost` are held, or at the next flush. */
  batch(report: ReadThreadReport): void {
    this.held.push(report);
    if (this.held.length >= this.perPost) this.flush();
  }

  /** Any other report: after the batches held, at once. */
  post(report: ReadThreadReport, transfer?: ArrayBuffer[]): void {
    this.flush();
    this.send(report, transfer);
  }

  /** Posts the batches held. */
  flush(): void {
    for (const report of this.held) this.send(report, [report.data!.buffer as ArrayBuffer]);
    this.held.length = 0;
  }
}
