import { afterEach, describe, expect, it } from 'vitest';
import { FloodTurns, type FloodTurn } from './flood-turns.js';

const KiB = 1024;
/** The test's turns, disposed after it. */
let turns: FloodTurns | undefined;
afterEach(() => turns?.dispose());

/** A reader that records whether it is paused, on a clock the test moves. */
function setup(options: { readers: number }) {
  let clock = 0;
  /**
   * The loop as the turns see it: free all along, unless the test stalls it, but seen free only up to the
   * latest moment the turns asked it to be watched until, as a LoopWatch no one keeps runs no timer.
   */
  let stalledSince: number | undefined;
  let keptUntil = Number.NEGATIVE_INFINITY;
  let keeps = 0;
  const keepUntil = (until: number) => {
    keeps++;
    keptUntil = Math.max(keptUntil, until);
  };
  const loop = { freeAt: () => stalledSince ?? Math.min(clock, keptUntil), keepUntil, dispose: () => undefined };
  const made = new FloodTurns({ readers: options.readers, floodBytes: 64 * KiB, sliceBytes: 128 * KiB, quietMs: 50, now: () => clock, loop });
  turns = made;
  const sessions: Array<{ name: string; paused: boolean; turn: FloodTurn }> = [];
  const join = (name: string) => {
    const session = { name, paused: false, turn: undefined as unknown as FloodTurn };
    session.turn = made.join({ pause: () => (session.paused = true), resume: () => (session.paused = false) });
    sessions.push(session);
    return session;
  };
  /** `bytes` read from `session` in 4 KiB chunks, 1 ms apart (a flood), unless it is paused. */
  const flood = (session: { paused: boolean; turn: FloodTurn }, bytes: number) => {
    for (let read = 0; read < bytes && !session.paused; read += 4 * KiB) {
      clock += 1;
      session.turn.read(4 * KiB);
    }
  };
  /** Sessions held back, waiting for a reader's place: what their readers were told. */
  const pausedCount = () => sessions.filter((s) => s.paused).length;
  /** The main thread is busy for `ms`: nothing is read meanwhile, and the loop is not seen free. */
  const stall = (ms: number) => {
    stalledSince = clock;
    clock += ms;
  };
  const unstall = () => (stalledSince = undefined);
  return { turns: made, join, flood, advance: (ms: number) => (clock += ms), stall, unstall, sessions, pausedCount, keeps: () => keeps };
}

describe('FloodTurns', () => {
  it('never holds back output that is not a flood, however many sessions print', () => {
    const t = setup({ readers: 1 });
    const shells = Array.from({ length: 10 }, (_, i) => t.join(`shell${i}`));
    for (let round = 0; round < 100; round++) {
      for (const shell of shells) {
        t.advance(60); // a prompt, an echo: never 64 KiB without a pause
        shell.turn.read(200);
      }
    }
    expect(shells.some((s) => s.paused)).toBe(false);
  });

  it('keeps no watch of the loop for a trickle, whose pause its next read judges: keys echoed for long are no flood', () => {
    const t = setup({ readers: 1 });
    const shell = t.join('shell');
    // 2000 keys 60 ms apart, each echoed as 64 bytes (a line redrawn): twice floodBytes in all.
    for (let key = 0; key < 2000; key++) {
      t.advance(60);
      shell.turn.read(64);
    }
    // The watch's 25 ms timer had ticked behind every key, between the next key's write and its echo's read.
    expect(t.keeps()).toBe(0);
    // The shell's run ended at every pause, so it never took the reader's place: the next flood reads.
    const build = t.join('build');
    t.flood(build, 64 * KiB);
    expect(build.paused).toBe(false);
    expect(t.keeps()).toBeGreaterThan(0);
  });

  it('lets floods up to the readers run, and pauses the next one until a reader gives way after its slice', () => {
    const t = setup({ readers: 1 });
    const a = t.join('a');
    const b = t.join('b');
    t.flood(a, 64 * KiB); // a is a flood and reads
    t.flood(b, 64 * KiB); // b is a flood too: no reader's place is free
    expect([a.paused, b.paused]).toEqual([false, true]);
    expect(t.pausedCount()).toBe(1);
    // a reads its slice (128 KiB from taking its place), then gives way to b.
    t.flood(a, 256 * KiB);
    expect([a.paused, b.paused]).toEqual([true, false]);
    t.flood(b, 256 * KiB);
    expect([a.paused, b.paused]).toEqual([false, true]);
  });

  it('runs one flood alone at full speed: with no one waiting, its slice never ends', () => {
    const t = setup({ readers: 1 });
    const a = t.join('a');
    t.flood(a, 8 * 1024 * KiB);
    expect(a.paused).toBe(false);
  });

  it('takes a place back from a reader that went quiet, for the next flood', () => {
    const t = setup({ readers: 1 });
    const a = t.join('a');
    const b = t.join('b');
    t.flood(a, 64 * KiB);
    t.advance(50); // a's flood ended
    t.flood(b, 64 * KiB);
    expect(b.paused).toBe(false);
  });

  it('does not take a stalled loop for a quiet reader: a flood read after the stall waits its turn', () => {
    const t = setup({ readers: 1 });
    const a = t.join('a');
    const b = t.join('b');
    t.flood(a, 64 * KiB);
    // The main thread is busy 60 ms (a long handler, a GC pause): both floods' output waited in the kernel,
    // and b's reads happen to come first after it. a's last read is 60 ms old, but the loop was not free.
    t.stall(60);
    t.flood(b, 64 * KiB);
    t.unstall();
    expect([a.paused, b.paused]).toEqual([false, true]);
    // a carries on with its turn, then gives way.
    t.flood(a, 128 * KiB);
    expect([a.paused, b.paused]).toEqual([true, false]);
  });

  it('lets a session that ends while waiting read again, and gives an ending reader’s place to the next', () => {
    const t = setup({ readers: 1 });
    const a = t.join('a');
    const b = t.join('b');
    const c = t.join('c');
    t.flood(a, 64 * KiB);
    t.flood(b, 64 * KiB);
    t.flood(c, 64 * KiB);
    expect([a.paused, b.paused, c.paused]).toEqual([false, true, true]);
    // b is killed while it waits: it must read again to see its end.
    b.turn.dispose();
    expect(b.paused).toBe(false);
    expect(t.pausedCount()).toBe(1);
    // a ends: c, next in line, reads.
    a.turn.dispose();
    expect(c.paused).toBe(false);
    expect(t.pausedCount()).toBe(0);
  });

  it('lets a waiting flood that is typed into read at once, and counts it a flood again after floodBytes', () => {
    const t = setup({ readers: 1 });
    const a = t.join('a');
    const b = t.join('b');
    t.flood(a, 64 * KiB);
    t.flood(b, 64 * KiB);
    expect(b.paused).toBe(true);
    b.turn.input(); // Ctrl-C
    expect(b.paused).toBe(false);
    expect(t.pausedCount()).toBe(0);
    // Typing into a reader changes nothing.
    a.turn.input();
    expect(a.paused).toBe(false);
    // b prints on: after another floodBytes it waits again, a still reading.
    t.flood(b, 128 * KiB);
    expect([a.paused, b.paused]).toEqual([false, true]);
  });

  it('with readers 0, never pauses anything', () => {
    const t = setup({ readers: 0 });
    const floods = Array.from({ length: 5 }, (_, i) => t.join(`f${i}`));
    for (const f of floods) t.flood(f, 1024 * KiB);
    expect(floods.some((f) => f.paused)).toBe(false);
  });
});
