import { describe, expect, it } from 'vitest';
import { ACK_WINDOW } from '@ptydeck/contract';
import { ViewerWindow } from './viewer-window.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * A viewer that parses `bytesPerMs` and acks every `ackBytes`, fed by a sender
 * that fills the window whenever an ack opens it; each round trip of the
 * connection itself costs `rttMs`. Time is simulated: deterministic.
 */
function simulate(win: ViewerWindow, opts: { bytesPerMs: number; ackBytes: number; rttMs: number; untilMs: number }) {
  let now = 0;
  let sent = 0;
  let acked = 0;
  let parsedTo = 0;
  let maxInFlight = 0;
  /** When the viewer finishes parsing what it has: it parses in order, one byte after another. */
  let busyUntil = 0;
  const arrivals: { end: number; at: number }[] = [];
  const fill = () => {
    const room = win.size - (sent - acked);
    if (room <= 0) return;
    sent += room;
    win.sent(sent, now);
    arrivals.push({ end: sent, at: now + opts.rttMs / 2 });
    maxInFlight = Math.max(maxInFlight, sent - acked);
  };
  fill();
  while (now < opts.untilMs) {
    // Parse the next ack's worth of bytes.
    const target = Math.min(sent, parsedTo + opts.ackBytes);
    const arrival = arrivals.find((a) => a.end >= target)!;
    const start = Math.max(busyUntil, arrival.at);
    busyUntil = start + (target - parsedTo) / opts.bytesPerMs;
    parsedTo = target;
    now = busyUntil + opts.rttMs / 2;
    win.ack(parsedTo, now);
    acked = parsedTo;
    fill();
  }
  return { maxInFlight, sent, acked, now };
}

describe('ViewerWindow', () => {
  it('starts at ACK_WINDOW, the floor', () => {
    expect(new ViewerWindow(0).size).toBe(ACK_WINDOW);
  });

  it('grows for a fast viewer on a short round trip, no more than doubling per round trip, up to the ceiling', () => {
    const win = new ViewerWindow(0, { ceiling: 4 * MiB });
    let now = 0;
    let acked = 0;
    const sizes: number[] = [];
    for (let round = 0; round < 12; round++) {
      const before = win.size;
      win.sent(acked + before, now);
      now += 2; // the whole window parsed and acked 2 ms later: 64 MB/s
      win.ack(acked + before, now);
      acked += before;
      expect(win.size).toBeLessThanOrEqual(2 * before);
      sizes.push(win.size);
    }
    expect(sizes[0]).toBe(2 * ACK_WINDOW);
    expect(win.size).toBe(4 * MiB);
  });

  it('keeps the floor for a terminal that parses a flood at 100 KB/s', () => {
    const win = new ViewerWindow(0);
    simulate(win, { bytesPerMs: 100, ackBytes: 16 * KiB, rttMs: 1, untilMs: 20_000 });
    expect(win.size).toBe(ACK_WINDOW);
  });

  it('settles near pace × target delay for a middling viewer, so in-flight output parses in about the target', () => {
    const win = new ViewerWindow(0, { targetDelayMs: 100 });
    // 20 MB/s: 100 ms of parsing is about 2 MB.
    simulate(win, { bytesPerMs: 20_000, ackBytes: 32 * KiB, rttMs: 1, untilMs: 5_000 });
    expect(win.size).toBeGreaterThan(1 * MiB);
    expect(win.size).toBeLessThanOrEqual(2_000_000 * 1.1);
  });

  it('shrinks at once when acks lag: the viewer slowed down', () => {
    const win = new ViewerWindow(0, { targetDelayMs: 100 });
    const { acked, now } = simulate(win, { bytesPerMs: 20_000, ackBytes: 32 * KiB, rttMs: 1, untilMs: 2_000 });
    expect(win.size).toBeGreaterThan(1 * MiB);
    // The viewer now parses at 50 KB/s: the first ack that waited past the target cuts the window.
    win.ack(acked + 32 * KiB, now + (32 * KiB) / 50);
    expect(win.size).toBe(ACK_WINDOW);
  });

  it('a quiet spell does not count as slow parsing, and a partial ack keeps the rest of its send in flight', () => {
    const win = new ViewerWindow(1000, { targetDelayMs: 100 });
    win.sent(1000 + 64 * KiB, 0);
    win.ack(1000 + 32 * KiB, 1); // half of one send, 1 ms after it left
    win.ack(1000 + 64 * KiB, 2); // the rest
    expect(win.size).toBe(ACK_WINDOW + 64 * KiB);
    // Idle for a minute, then one more send acked promptly: measured from its send, not from the last ack.
    win.sent(1000 + 128 * KiB, 60_000);
    win.ack(1000 + 128 * KiB, 60_001);
    expect(win.size).toBe(ACK_WINDOW + 128 * KiB);
  });

  it('measures a send after a quiet spell from when it left, so the spell does not read as slow parsing', () => {
    const win = new ViewerWindow(0, { targetDelayMs: 100 });
    // A slow viewer: 64 KiB in 50 ms parses no more than the floor in the target delay.
    win.sent(64 * KiB, 0);
    win.ack(64 * KiB, 50);
    expect(win.size).toBe(ACK_WINDOW);
    // A minute later, 64 KiB parsed in 1 ms: the pace rose, and the window grows. Counted from the
    // last ack, the minute would have brought the pace down and kept the floor.
    win.sent(128 * KiB, 60_000);
    win.ack(128 * KiB, 60_001);
    expect(win.size).toBe(ACK_WINDOW + 64 * KiB);
  });

  it('ignores old and repeated acks; after a restart acks for earlier output change nothing but the mark', () => {
    const win = new ViewerWindow(0);
    win.sent(64 * KiB, 0);
    win.ack(64 * KiB, 1);
    const size = win.size;
    win.ack(64 * KiB, 2);
    win.ack(10, 3);
    expect(win.size).toBe(size);
    win.restart(10 * MiB);
    win.ack(10 * MiB + 5, 4);
    expect(win.size).toBe(size);
  });
});
