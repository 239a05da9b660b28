import { describe, expect, it } from 'vitest';
import { createPtyService } from './pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { waitForExit, waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from './types.js';

const decodeStrict = (data: Uint8Array) => new TextDecoder('utf-8', { fatal: true }).decode(data);

/** Resolves once the session's log end reaches `end` bytes. */
function waitForEnd(service: PtyService, id: string, end: number): Promise<void> {
  return new Promise((resolve) => {
    if (service.read(id, { maxBytes: 1 }).end >= end) return resolve();
    const off = service.on('pty.data', (event) => {
      if (event.id === id && event.cursor + event.data.length >= end) {
        off();
        resolve();
      }
    });
  });
}

describe('output caps', () => {
  it('trims a session to its cap on character boundaries and counts every skipped byte', async () => {
    const service = createPtyService({ sessionLogBytes: 1000, env: isolatedEnv() });
    try {
      const unit = 'é€😀'; // 2 + 3 + 4 bytes
      const expected = unit.repeat(500);
      const total = Buffer.byteLength(expected);
      const info = service.create({ command: 'bash', args: ['-c', `for i in $(seq 500); do printf '${unit}'; done`], source: 'agent' });
      await waitForExit(service, info.id);

      const all = service.read(info.id, { cursor: 0 });
      expect(all.end).toBe(total);
      expect(all.data.length).toBeLessThanOrEqual(1000);
      expect(all.data.length).toBeGreaterThan(1000 - 4);
      expect(all.skipped).toBe(total - all.data.length);
      expect(all.cursor).toBe(all.skipped);
      expect(expected.endsWith(decodeStrict(all.data))).toBe(true);

      // Small reads walk the retained bytes without splitting characters or losing any.
      let cursor = 0;
      let text = '';
      let skipped = 0;
      for (;;) {
        const part = service.read(info.id, { cursor, maxBytes: 7 });
        skipped += part.skipped;
        if (part.data.length === 0) break;
        text += decodeStrict(part.data);
        cursor = part.next;
      }
      expect(skipped).toBe(all.skipped);
      expect(text).toBe(decodeStrict(all.data));
    } finally {
      await service.dispose();
    }
  });

  it('trims the oldest exited sessions first under the global cap, then running ones', async () => {
    const service = createPtyService({ sessionLogBytes: 2000, totalLogBytes: 3000, env: isolatedEnv() });
    try {
      const fill = (char: string, count: number) => service.create({ command: 'bash', args: ['-c', `head -c ${count} /dev/zero | tr '\\0' ${char}`], source: 'agent' });
      const a = fill('a', 1500);
      await waitForExit(service, a.id);
      const b = fill('b', 1500);
      await waitForExit(service, b.id);
      expect(service.read(a.id).data.length + service.read(b.id).data.length).toBe(3000);

      // A running session that echoes exactly what it is sent.
      const c = service.create({ command: 'bash', args: ['-c', 'stty -echo -icanon; printf R; exec cat'], source: 'user' });
      await waitForOutput(service, c.id, 'R');
      service.write(c.id, 'c'.repeat(1199));
      await waitForEnd(service, c.id, 1200);
      // 4200 bytes against a 3000-byte cap: the oldest exited session gives up 1200.
      expect(service.read(a.id, { cursor: 0 })).toMatchObject({ skipped: 1200, cursor: 1200, end: 1500 });
      expect(service.read(b.id, { cursor: 0 })).toMatchObject({ skipped: 0, end: 1500 });
      expect(service.read(c.id, { cursor: 0 })).toMatchObject({ skipped: 0, end: 1200 });

      service.write(c.id, 'd'.repeat(1200));
      await waitForEnd(service, c.id, 2400);
      // c hits its own 2000-byte cap; a is emptied, then b gives up the rest.
      const readA = service.read(a.id, { cursor: 0 });
      expect(readA).toMatchObject({ skipped: 1500, cursor: 1500, end: 1500, status: 'exited', exitCode: 0 });
      expect(readA.data.length).toBe(0);
      const readB = service.read(b.id, { cursor: 0 });
      expect(readB).toMatchObject({ skipped: 500, end: 1500 });
      expect(Buffer.from(readB.data).toString()).toBe('b'.repeat(1000));
      const readC = service.read(c.id, { cursor: 0 });
      expect(readC).toMatchObject({ skipped: 400, cursor: 400, end: 2400, status: 'running' });
      expect(Buffer.from(readC.data).toString()).toBe('c'.repeat(800) + 'd'.repeat(1200));
      // A reader that kept up loses nothing: its cursor is still retained.
      expect(service.read(c.id, { cursor: 2000 })).toMatchObject({ skipped: 0, cursor: 2000, next: 2400 });
    } finally {
      await service.dispose();
    }
  });

  it('trims the running session retaining the most bytes once no exited session has bytes left, so a quiet one keeps its log', async () => {
    const service = createPtyService({ sessionLogBytes: 1000, totalLogBytes: 1500, env: isolatedEnv() });
    try {
      const echo = () => service.create({ command: 'bash', args: ['-c', 'stty -echo -icanon; printf R; exec cat'], source: 'user' });
      // The oldest running session: an interactive one with a little output, as a shell typed into.
      const quiet = echo();
      await waitForOutput(service, quiet.id, 'R');
      service.write(quiet.id, 'q'.repeat(99));
      await waitForEnd(service, quiet.id, 100);
      const floods = [echo(), echo()];
      for (const flood of floods) await waitForOutput(service, flood.id, 'R');
      // 2 x 1200 bytes more, in turns, against 1400 bytes of cap left beside the quiet session.
      const ends = [1, 1];
      for (let round = 0; round < 4; round++) {
        for (const [i, flood] of floods.entries()) {
          service.write(flood.id, String(i).repeat(300));
          ends[i]! += 300;
          await waitForEnd(service, flood.id, ends[i]!);
        }
      }

      const quietRead = service.read(quiet.id, { cursor: 0 });
      expect(quietRead).toMatchObject({ skipped: 0, cursor: 0, end: 100 });
      expect(Buffer.from(quietRead.data).toString()).toBe('R' + 'q'.repeat(99));
      let retained = quietRead.data.length;
      for (const [i, flood] of floods.entries()) {
        const read = service.read(flood.id, { cursor: 0 });
        // Every dropped byte is counted: what was skipped plus what is left is all that was written.
        expect(read.end).toBe(ends[i]);
        expect(read.skipped).toBe(read.cursor);
        expect(read.skipped + read.data.length).toBe(read.end);
        expect(read.skipped).toBeGreaterThan(0);
        expect(Buffer.from(read.data).toString()).toBe(String(i).repeat(read.data.length));
        retained += read.data.length;
      }
      expect(retained).toBe(1500);
    } finally {
      await service.dispose();
    }
  });
});
