import { afterEach, describe, expect, it } from 'vitest';
import { MessageChannel } from 'node:worker_threads';
import { FloodTurns, type FloodTurn } from './flood-turns.js';
import { busy } from './test-kit.js';

const KiB = 1024;
/** The test's turns, disposed after it. */
let turns: FloodTurns | undefined;
afterEach(() => turns?.dispose());

/** A reader that records whether it is paused, on a clock the test moves. */
function setup(options: { readers: number }) {
  let clock = 0;
  const made = new FloodTurns({ readers: options.readers, floodBytes: 64 * KiB, sliceBytes: 128 * KiB, quietMs: 50, now: () => clock });
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
  return { turns: made, join, flood, advance: (ms: number) => (clock += ms), sessions, pausedCount };
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

  it('does not take a reader for quiet when the loop itself was held: what it read meanwhile counts first', async () => {
    // The real clock and loop: a main thread off the CPU (load, a long task) comes back to a due quiet check in
    // its timers phase before the reads that waited meanwhile, in its poll phase. The writer was never quiet.
    const quietMs = 20;
    const made = new FloodTurns({ readers: 1, floodBytes: KiB, sliceBytes: 1024 * KiB, quietMs });
    turns = made;
    let bResumed = false;
    const a = made.join({ pause: () => undefined, resume: () => undefined });
    const b = made.join({ pause: () => undefined, resume: () => (bResumed = true) });
    a.read(KiB); // a reads
    b.read(KiB); // b waits, and the quiet check is armed
    const { port1, port2 } = new MessageChannel();
    try {
      // a's next read, ready while the loop is held, as a PTY's (or the read thread's) would be.
      const aRead = new Promise<boolean>((resolve) =>
        port2.once('message', () => {
          const resumedBefore = bResumed;
          a.read(4 * KiB);
          resolve(resumedBefore);
        }),
      );
      setImmediate(() => {
        port1.postMessage('data');
        busy(3 * quietMs);
      });
      expect(await aRead, "b was let in before a's waiting read was seen").toBe(false);
      await new Promise((resolve) => setImmediate(resolve));
      expect(bResumed, 'a kept its place: it had not gone quiet').toBe(false);
    } finally {
      port1.close();
      port2.close();
    }
  });

  it('with readers 0, never pauses anything', () => {
    const t = setup({ readers: 0 });
    const floods = Array.from({ length: 5 }, (_, i) => t.join(`f${i}`));
    for (const f of floods) t.flood(f, 1024 * KiB);
    expect(floods.some((f) => f.paused)).toBe(false);
  });
});
