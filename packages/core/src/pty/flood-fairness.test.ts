import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPtyService } from './pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { waitForExit } from '../testing/session-waits.js';
import type { PtyService } from './types.js';

const MiB = 1024 * 1024;
let service: PtyService;
afterEach(async () => {
  await service.dispose();
});

/**
 * A program that prints `bytes` bytes as fast as the terminal takes them, then exits; it starts once
 * `gate` (a FIFO) is closed by its writer, so that floods started one after another flood together
 * (on a loaded machine, one could otherwise end before the next one's process even ran).
 */
const floodOf = (bytes: number, gate: string) => ({ command: 'sh', args: ['-c', 'cat "$1" > /dev/null; exec head -c "$2" /dev/zero', 'flood', gate, String(bytes)], source: 'user' as const });

/**
 * Creates the floods together and records which session each chunk came from, in order.
 * threadReadAfter 0 keeps every flood on the event loop, which reads about 4 KiB a chunk;
 * the read thread hands on 64 KiB a chunk.
 */
async function runFloods(
  floodReaders: number,
  count: number,
  bytes: number,
  threadReadAfter = 0,
): Promise<{ order: string[]; sizes: number[]; ends: number[] }> {
  // A second's pause ends a flood here, not 50 ms: under a whole `npm test` on two cores a writer can wait that
  // long for a CPU, which counts as quiet, and the floods then read side by side as designed (CI saw it once).
  service = createPtyService({ env: isolatedEnv(), floodReaders, threadReadAfter, floodQuietMs: 1000 });
  // Recorded once every flood has printed 512 KiB: before that, each reads side by side up to the 256 KiB
  // that makes it a flood, in as many chunks as the kernel hands out.
  const order: string[] = [];
  const sizes: number[] = [];
  const printed = new Map<string, number>();
  service.on('pty.data', (event) => {
    printed.set(event.id, (printed.get(event.id) ?? 0) + event.data.length);
    if (printed.size === count && [...printed.values()].every((bytes) => bytes >= MiB / 2)) {
      order.push(event.id);
      sizes.push(event.data.length);
    }
  });
  const gates = fileTempDir('ptydeck-flood-gates-');
  try {
    const paths = Array.from({ length: count }, (_, i) => join(gates, String(i)));
    for (const path of paths) execFileSync('mkfifo', [path]);
    const ids = paths.map((path) => service.create(floodOf(bytes, path)).id);
    // Each open resolves once its flood's `cat` has the FIFO open; closing them all lets every flood go at once.
    const writers = await Promise.all(paths.map((path) => open(path, 'w')));
    await Promise.all(writers.map((writer) => writer.close()));
    await Promise.all(ids.map((id) => waitForExit(service, id)));
    return { order, sizes, ends: ids.map((id) => service.read(id, { maxBytes: 1 }).end) };
  } finally {
    rmSync(gates, { recursive: true, force: true });
  }
}

/** How often consecutive chunks came from different sessions. */
const switches = (order: string[]) => order.filter((id, i) => i > 0 && id !== order[i - 1]).length;

/** The median of the bytes one session printed before another printed. */
function medianRun(order: string[], sizes: number[]): number {
  const runs: number[] = [];
  order.forEach((id, i) => {
    if (i > 0 && id === order[i - 1]) runs[runs.length - 1]! += sizes[i]!;
    else runs.push(sizes[i]!);
  });
  runs.pop(); // the last run ends with the floods, not with a turn
  return runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)] ?? 0;
}

describe('floods taking turns', () => {
  it('reads floods past the readers in turns of a slice each, and every byte of each arrives', async () => {
    const { order, ends } = await runFloods(1, 3, 4 * MiB);
    expect(ends).toEqual([4 * MiB, 4 * MiB, 4 * MiB]);
    // Each flood reads in slices of 256 KiB while another waits: a few dozen
    // switches over the last 10.5 MiB, where reading all three every turn
    // switches on most of its 2600 or so chunks (the test below).
    expect(switches(order)).toBeLessThan(300);
  });

  it('reads every flood on every turn with floodReaders 0 (the contrast for the test above)', async () => {
    const { order, ends } = await runFloods(0, 3, 4 * MiB);
    expect(ends).toEqual([4 * MiB, 4 * MiB, 4 * MiB]);
    // What the test above bounds is broken without turns: about 2200 switches on a quiet machine or
    // under a few busy loops, but how evenly the kernel runs three writers varies with load (under a
    // full `npm test` one run had fewer than 1000), so the contrast is the bound itself, not a figure.
    expect(switches(order)).toBeGreaterThan(300);
  });

  it('with the read thread too: a flood reads a slice before the next has its turn', async () => {
    const { order, sizes, ends } = await runFloods(1, 3, 4 * MiB, 256 * 1024);
    expect(ends).toEqual([4 * MiB, 4 * MiB, 4 * MiB]);
    // Turns of 256 KiB (a slice); the thread's chunks are up to 64 KiB, so a run can end a chunk early.
    expect(medianRun(order, sizes)).toBeGreaterThanOrEqual(192 * 1024);
  });

  it('with the read thread and floodReaders 0, the thread reads all floods side by side (the contrast)', async () => {
    const { order, sizes, ends } = await runFloods(0, 3, 4 * MiB, 256 * 1024);
    expect(ends).toEqual([4 * MiB, 4 * MiB, 4 * MiB]);
    expect(medianRun(order, sizes)).toBeLessThanOrEqual(128 * 1024);
  });

  it('ends floods that wait their turn at once when they are removed', async () => {
    service = createPtyService({ env: isolatedEnv(), floodReaders: 1 });
    const endless = () => service.create({ command: 'cat', args: ['/dev/zero'], source: 'user' }).id;
    const a = endless();
    const b = endless();
    // Both have had a turn: b got a's place after a's slice.
    await new Promise<void>((resolve) => {
      const off = service.on('pty.data', () => {
        if (service.read(a, { maxBytes: 1 }).end < MiB || service.read(b, { maxBytes: 1 }).end < MiB) return;
        off();
        resolve();
      });
    });
    await Promise.all([service.remove(a), service.remove(b)]);
    expect(service.list()).toEqual([]);
  });
});
