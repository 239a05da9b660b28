import { describe, expect, it } from 'vitest';
import { ReportPoster } from './report-poster.js';
import { BATCHES_PER_POST, dataReport, endReport, quietReport, type ReadThreadReport } from './read-thread-protocol.js';

function recorder() {
  const sent: Array<{ report: ReadThreadReport; transfer: ArrayBuffer[] | undefined }> = [];
  const poster = new ReportPoster((report, transfer) => sent.push({ report, transfer }));
  const batch = (slot: number) => dataReport(slot, new Uint8Array(64), true);
  return { sent, poster, batch };
}

describe('ReportPoster', () => {
  it('posts full batches a group at a time, in order, each with its buffer to transfer', () => {
    const { sent, poster, batch } = recorder();
    const batches = Array.from({ length: BATCHES_PER_POST }, (_, i) => batch(i % 2));
    for (const report of batches.slice(0, -1)) poster.batch(report);
    // The main thread is not woken for a part of a group.
    expect(sent).toEqual([]);
    poster.batch(batches.at(-1)!);
    expect(sent.map((s) => s.report)).toEqual(batches);
    expect(sent.map((s) => s.transfer)).toEqual(batches.map((report) => [report.data!.buffer]));
  });

  it('posts the batches held before any other report, so a terminal ends after its last bytes', () => {
    const { sent, poster, batch } = recorder();
    const first = batch(1);
    const small = dataReport(1, new Uint8Array(10), false);
    const end = endReport(1, 'EIO');
    poster.batch(first);
    poster.post(small, [small.data!.buffer as ArrayBuffer]);
    poster.post(end);
    expect(sent.map((s) => s.report)).toEqual([first, small, end]);
    expect(sent[1]!.transfer).toEqual([small.data!.buffer]);
  });

  it('posts what it holds when flushed (before the thread sleeps, waits or lets a terminal go), and nothing twice', () => {
    const { sent, poster, batch } = recorder();
    const held = [batch(1), batch(2)];
    for (const report of held) poster.batch(report);
    poster.flush();
    poster.flush();
    poster.post(quietReport(2));
    expect(sent.map((s) => s.report)).toEqual([...held, quietReport(2)]);
  });
});
