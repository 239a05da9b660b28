import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { openSessionStore } from './session-store.js';

/**
 * What the README promises a SIGKILLed host keeps: a session's output up to
 * at most LOSS_BOUND_MS before the kill (one flush interval of 1 s, and a
 * second for the write under way), for sessions printing less than the
 * store's write budget together.
 */
const LOSS_BOUND_MS = 2_000;
/** Enough flood for the file to have started over and been compacted many times. */
const FLOOD_BYTES = 8 * 1024 * 1024;

/** Where `seq`'s line for `n` starts in its output through a PTY (lines end in \r\n). */
function seqOffset(n: number): number {
  let offset = 0;
  for (let digits = 1, low = 1; low < n; digits++, low *= 10) {
    const high = Math.min(n, low * 10);
    offset += (high - low) * (digits + 2);
  }
  return offset;
}

interface Progress {
  /** The child's clock (ms) when it saw the log reach `end`. */
  t: number;
  end: number;
}

describe('session store, killed', () => {
  it('a host SIGKILLed mid-flood leaves a contiguous suffix of the output, ending within the loss bound of what it had read', async () => {
    // The built modules, as the host runs them (the read thread a flood moves to is a worker, which cannot run TypeScript).
    const dist = (path: string) => JSON.stringify(fileURLToPath(new URL(`../../dist/${path}`, import.meta.url)));
    const script = `
      const { createPtyService } = await import(${dist('pty/pty-service.js')});
      const { openSessionStore } = await import(${dist('persist/session-store.js')});
      const service = createPtyService({ env: JSON.parse(process.env.TEST_ENV) });
      const store = openSessionStore({ dir: process.env.STORE_DIR });
      store.record(service);
      const { id } = service.create({ command: 'seq', args: ['1', '1000000000'], source: 'agent' });
      console.log(JSON.stringify({ id }));
      setInterval(() => console.log(JSON.stringify({ t: Date.now(), end: service.read(id, { maxBytes: 1 }).end })), 50);
    `;
    const scratch = fileTempDir('ptydeck-store-crash-');
    const file = join(scratch, 'host.mjs');
    writeFileSync(file, script);
    const dir = join(scratch, 'sessions');
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, TEST_ENV: JSON.stringify(isolatedEnv()), STORE_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    let id = '';
    const progress: Progress[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('exit', () => reject(new Error(`the host exited before the kill; it had reported ${JSON.stringify(progress.at(-1))}`)));
        createInterface({ input: child.stdout }).on('line', (line) => {
          const message = JSON.parse(line) as { id?: string } & Partial<Progress>;
          if (message.id) id = message.id;
          else progress.push(message as Progress);
          const last = progress.at(-1);
          // Killed once it has flooded a while and there is a report old enough to hold it to the bound.
          if (last && last.end >= FLOOD_BYTES && last.t - progress[0]!.t > 2 * LOSS_BOUND_MS) resolve();
        });
      });
    } finally {
      child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');

    const record = (await openSessionStore({ dir }).load()).find((r) => r.info.id === id);
    expect(record?.info.status).toBe('running');
    const { start, output } = record!;
    const end = start + output.length;
    expect(output.length).toBeGreaterThan(0);
    expect(output.length).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(record!.readEnd).toBeGreaterThanOrEqual(end);

    // Contiguous: whole lines are consecutive numbers, each where seq put it.
    const text = Buffer.from(output).toString('latin1');
    const firstBreak = text.indexOf('\r\n');
    const lines = text.slice(firstBreak + 2).split('\r\n');
    const partial = lines.pop()!;
    const first = Number(lines[0]);
    expect(start + firstBreak + 2).toBe(seqOffset(first));
    lines.forEach((line, i) => expect(line).toBe(String(first + i)));
    // The kill may land anywhere in a line, between its \r and \n too.
    expect(`${first + lines.length}\r\n`.startsWith(partial), JSON.stringify(partial)).toBe(true);

    // The child's clock only: a report LOSS_BOUND_MS older than its last one had time to be written.
    const lastReport = progress.at(-1)!;
    const held = progress.filter((p) => p.t <= lastReport.t - LOSS_BOUND_MS).at(-1)!;
    expect(end).toBeGreaterThanOrEqual(held.end);
  });
});
