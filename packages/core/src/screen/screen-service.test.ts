import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { ScreenMirror } from './screen-mirror.js';
import { ScreenService } from './screen-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { waitForOutput } from '../testing/session-waits.js';

let service: PtyService;
let screens: ScreenService;

beforeAll(() => {
  service = createPtyService({ env: { ...process.env, HOME: fileTempDir('ptydeck-home-') } });
  screens = new ScreenService(service);
});

afterAll(async () => {
  screens.dispose();
  await service.dispose();
});

function exited(id: string): Promise<void> {
  return new Promise((resolve) => {
    if (service.get(id)?.status === 'exited') return resolve();
    const off = service.on('pty.exited', (e) => {
      if (e.id === id) {
        off();
        resolve();
      }
    });
  });
}

describe('ScreenService', () => {
  it('renders the screen as of everything in the log, with the cursor it reflects', async () => {
    const info = service.create({ source: 'user', command: 'printf', args: ['first line\\r\\n\\x1b[1mbold\\x1b[0m line\\r\\n'], cols: 40, rows: 10 });
    await exited(info.id);
    const snapshot = await screens.snapshot(info.id);
    expect(snapshot.cursor).toBe(service.read(info.id, { maxBytes: 1 }).end);
    expect(snapshot.screen).toContain('first line');
    expect(snapshot.screen).toContain('\x1b[1mbold');
  });

  it('reads the visible screen as text, with the alternate screen flag, as of everything in the log', async () => {
    const info = service.create({
      source: 'user',
      command: 'printf',
      args: ['shell$ \x1b[?1049h\x1b[Hpager page\r\nsecond row'],
      cols: 30,
      rows: 4,
    });
    await exited(info.id);
    const text = await screens.text(info.id);
    expect(text).toEqual({ text: 'pager page\nsecond row', altScreen: true, cursor: service.read(info.id, { maxBytes: 1 }).end });
    await service.remove(info.id);
  });

  it('serves text reads and snapshots from one terminal per session', async () => {
    let made = 0;
    const local = new ScreenService(service, {
      createScreen: (options) => {
        made++;
        return new ScreenMirror(options);
      },
    });
    try {
      const info = service.create({ source: 'user', command: 'printf', args: ['shared screen'], cols: 30, rows: 4 });
      await exited(info.id);
      expect((await local.text(info.id)).text).toBe('shared screen');
      expect((await local.snapshot(info.id)).screen).toContain('shared screen');
      expect((await local.text(info.id)).text).toBe('shared screen');
      expect(made).toBe(1);
      await service.remove(info.id);
      expect(await local.text(info.id)).toEqual({ text: '', altScreen: false, cursor: 0 });
    } finally {
      local.dispose();
    }
  });

  it('answers a snapshot again without asking the screen while the log has not grown and the size is the same, and asks it again once either changes', async () => {
    let asked = 0;
    /** Counts the snapshots the screen itself makes (a worker's round trip, for the worker's screens). */
    class CountingMirror extends ScreenMirror {
      override snapshot(scrollback: number): ReturnType<ScreenMirror['snapshot']> {
        asked++;
        return super.snapshot(scrollback);
      }
    }
    const local = new ScreenService(service, { createScreen: (options) => new CountingMirror(options) });
    try {
      const info = service.create({ source: 'user', command: 'sh', args: ['-c', "printf 'idle screen'; exec cat"], cols: 30, rows: 4 });
      await waitForOutput(service, info.id, 'idle screen');
      const first = await local.snapshot(info.id);
      expect(first.screen).toContain('idle screen');
      expect(await local.snapshot(info.id)).toEqual(first);
      expect(asked).toBe(1);
      // A text read is no snapshot: it is not answered from one.
      expect((await local.text(info.id)).text).toBe('idle screen');
      expect(asked).toBe(1);
      service.resize(info.id, 20, 4);
      const resized = await local.snapshot(info.id);
      expect(asked).toBe(2);
      expect(resized.cursor).toBe(first.cursor);
      service.write(info.id, 'more');
      await waitForOutput(service, info.id, 'idle screenmore');
      const grown = await local.snapshot(info.id);
      expect(asked).toBe(3);
      expect(grown.screen).toContain('more');
      await service.remove(info.id);
    } finally {
      local.dispose();
    }
  });

  it('sends a read with the write it waits for when the screen answers in order, instead of after the write is answered', async () => {
    const events: string[] = [];
    /** A terminal that serves requests in order, as the worker does, and tells when each is asked for and answered. */
    class OrderedMirror extends ScreenMirror {
      override get readsFollowWrites(): boolean {
        return true;
      }
      override write(data: string | Uint8Array): Promise<void> {
        events.push('write');
        const written = super.write(data);
        void written.then(() => events.push('written'));
        return written;
      }
      override text(): Promise<{ text: string; altScreen: boolean }> {
        events.push('text');
        return this.settled().then(() => super.text());
      }
    }
    const local = new ScreenService(service, { createScreen: (options) => new OrderedMirror(options) });
    try {
      const info = service.create({ source: 'user', command: 'printf', args: ['one round trip'], cols: 30, rows: 4 });
      // Asked as the output arrives, before anything parsed it.
      const read = new Promise<{ text: string; cursor: number; end: number }>((resolve, reject) => {
        const off = service.on('pty.data', (e) => {
          if (e.id !== info.id) return;
          off();
          const end = e.cursor + e.data.length;
          local.text(info.id).then(({ text, cursor }) => resolve({ text, cursor, end }), reject);
        });
      });
      const { text, cursor, end } = await read;
      expect(cursor).toBe(end);
      expect('one round trip'.startsWith(text)).toBe(true);
      const asked = events.indexOf('text');
      expect(events.slice(asked - 1, asked + 2)).toEqual(['write', 'text', 'written']);
      await service.remove(info.id);
    } finally {
      local.dispose();
    }
  });

  it("keeps only what reads return of an exited session's screen once it parsed the whole log, and reads answer as before", async () => {
    const made: ScreenMirror[] = [];
    const local = new ScreenService(service, {
      createScreen: (options) => {
        const mirror = new ScreenMirror(options);
        made.push(mirror);
        return mirror;
      },
    });
    try {
      const info = service.create({
        source: 'user',
        command: 'bash',
        args: ['--norc', '--noprofile', '-c', 'for i in $(seq 1 3000); do printf "\\e[3%dm%05d\\e[0m frozen line\\n" $((i % 8)) $i; done'],
        cols: 80,
        rows: 24,
      });
      await exited(info.id);
      const end = service.read(info.id, { maxBytes: 1 }).end;
      await vi.waitFor(() => expect(made[0]?.isFrozen).toBe(true), { timeout: 20_000, interval: 20 });
      expect(local.parsedThrough(info.id)).toBe(end);

      const reference = new ScreenMirror({ cols: 80, rows: 24, scrollback: 1000 });
      await reference.write(service.read(info.id).data);
      expect(await local.snapshot(info.id)).toEqual({ screen: reference.serialize({ scrollback: 1000 }), marks: [], cursor: end });
      expect(await local.text(info.id)).toEqual({ text: reference.screenText(), altScreen: false, cursor: end });
      expect(made).toHaveLength(1);
      expect(made[0]!.isFrozen).toBe(true);
      reference.dispose();
      await service.remove(info.id);
    } finally {
      local.dispose();
    }
  });

  it('catches up in the background once a session goes quiet, so the first snapshot has nothing left to parse', async () => {
    // About 200 KiB: under the backlog that starts background parsing during output, so only quiet can start it.
    const info = service.create({
      source: 'user',
      command: 'bash',
      args: ['--norc', '--noprofile', '-c', 'for i in $(seq 1 4000); do printf "\\e[32m%05d\\e[0m quiet catch-up line\\n" $i; done'],
      cols: 80,
      rows: 24,
    });
    await exited(info.id);
    const end = service.read(info.id, { maxBytes: 1 }).end;
    expect(end).toBeGreaterThan(100_000);
    await vi.waitFor(() => expect(screens.parsedThrough(info.id)).toBe(end), { timeout: 20_000, interval: 20 });
    const snapshot = await screens.snapshot(info.id);
    expect(snapshot.cursor).toBe(end);
    expect(snapshot.screen).toContain('04000');
    await service.remove(info.id);
  });

  it('applies a resize where it happened in the log, not before the output written at the old size', async () => {
    const info = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'], cols: 20, rows: 5 });
    const marker = (text: string) =>
      new Promise<void>((resolve) => {
        const off = service.on('pty.data', () => {
          if (Buffer.from(service.read(info.id).data).toString().includes(text)) {
            off();
            resolve();
          }
        });
      });
    // Moving far right stops at the last column: column 20 at the old size, 60 had the resize come first.
    let seen = marker('E\r\n');
    service.write(info.id, "printf '\\e[999CE\\n'\r");
    await seen;
    service.resize(info.id, 60, 5);
    seen = marker('done-7');
    service.write(info.id, 'echo done-$((3+4))\r');
    await seen;
    const snapshot = await screens.snapshot(info.id);
    const replay = new ScreenMirror({ cols: 60, rows: 5 });
    await replay.write(snapshot.screen);
    const lines = replay.screenText().split('\n');
    replay.dispose();
    expect(lines).toContain(' '.repeat(19) + 'E');
    expect(lines.some((line) => line.includes('done-7'))).toBe(true);
    await service.remove(info.id);
  });

  it('skims a flood it is far behind: draws only its end, in the modes the skipped output set', async () => {
    // About 2 MiB, with the alternate screen switched on at its start, long before the part that is drawn.
    const info = service.create({ source: 'user', command: 'sh', args: ['-c', "printf '\\033[?1049h'; seq 1 300000; exec cat"], cols: 20, rows: 3 });
    await waitForOutput(service, info.id, '300000\r\n');
    const end = service.read(info.id, { maxBytes: 1 }).end;
    expect(end).toBeGreaterThan(2_000_000);
    let drawn = 0;
    // Made after the output, so its first parse finds all of it waiting.
    const local = new ScreenService(service, {
      createScreen: (options) => {
        const screen = new ScreenMirror(options);
        const write = screen.write.bind(screen);
        screen.write = (data) => {
          drawn += data.length;
          return write(data);
        };
        return screen;
      },
    });
    try {
      expect(await local.text(info.id)).toEqual({ text: '299999\n300000', altScreen: true, cursor: end });
      // The skimmed part reached the terminal as its mode changes only.
      expect(drawn).toBeLessThan(end / 4);
      await service.remove(info.id);
    } finally {
      local.dispose();
    }
  });

  it('skims a flood the log has trimmed past it to the end it keeps, not past the end: the last lines are drawn', async () => {
    // A flood of about 3.4 MB into a 1 MiB log, as `yes` trims a viewer's mirror before Ctrl-C brings the prompt back.
    const small = createPtyService({ env: isolatedEnv(), sessionLogBytes: 1024 * 1024 });
    // Made after the output: its screens start at cursor 0, which the log has trimmed.
    const local = new ScreenService(small);
    try {
      const info = small.create({ source: 'user', command: 'seq', args: ['1', '500000'], cols: 20, rows: 3 });
      await new Promise<void>((resolve) => {
        const off = small.on('pty.exited', (e) => {
          if (e.id === info.id) resolve(off());
        });
      });
      const log = small.read(info.id, { maxBytes: 1 });
      expect(log.cursor).toBeGreaterThan(2_000_000);
      const snapshot = await local.snapshot(info.id);
      expect(snapshot.cursor).toBe(log.end);
      expect(snapshot.screen).toContain('499999\r\n500000');
      expect((await local.text(info.id)).text).toBe('499999\n500000');
    } finally {
      local.dispose();
      await small.dispose();
    }
  });

  it('skims all but the lines a snapshot restores: a reload right after a build log draws its last thousand lines, as a full parse would', async () => {
    // 10 000 colored lines of about 74 bytes (720 KiB), as a build prints them: the bench's figure 6.
    const esc = '\x1b';
    let text = '';
    for (let i = 1; i <= 10_000; i++) {
      text += `${esc}[1;32m${String(i).padStart(5, '0')}${esc}[0m ${esc}[36mbuild step ${i % 97}${esc}[0m compiled module_${i % 1013}.ts in ${(i * 37) % 1000} ms\n`;
    }
    const file = join(fileTempDir('ptydeck-build-log-'), 'build.log');
    writeFileSync(file, text);
    const info = service.create({ source: 'user', command: 'sh', args: ['-c', `cat '${file}'; exec cat`], cols: 80, rows: 24 });
    await waitForOutput(service, info.id, '10000\x1b[0m \x1b[36mbuild step 9\x1b[0m compiled module_883.ts in 0 ms\r\n');
    let drawn = 0;
    // Made after the output, so its first parse finds all of it waiting.
    const local = new ScreenService(service, {
      createScreen: (options) => {
        const screen = new ScreenMirror(options);
        const write = screen.write.bind(screen);
        screen.write = (data, marks) => {
          drawn += data.length;
          return write(data, marks);
        };
        return screen;
      },
    });
    const reference = new ScreenMirror({ cols: 80, rows: 24, scrollback: 1000 });
    try {
      const log = service.read(info.id);
      expect(log.end).toBeGreaterThan(700_000);
      await reference.write(log.data);
      const snapshot = await local.snapshot(info.id);
      expect(snapshot).toEqual({ screen: reference.serialize({ scrollback: 1000 }), marks: [], cursor: log.end });
      // The thousand lines of history and two screens' worth of lines: about 78 KB, not the 256 KiB kept for lines of any length.
      expect(drawn).toBeLessThan(96 * 1024);
      await service.remove(info.id);
    } finally {
      reference.dispose();
      local.dispose();
    }
  });

  it('skims closer to the end for a read of the visible screen than for a snapshot, which keeps history to restore', async () => {
    // About 590 KB each: past both skim limits.
    const flood = (cols = 20, rows = 3, last = 100_000) => service.create({ source: 'user', command: 'seq', args: ['1', String(last)], cols, rows }).id;
    const forText = flood();
    // Lines of 300 characters, 2000 of them (600 KB): fewer than the thousand lines of history and two screens in its last 256 KiB.
    const forSnapshot = service.create({ source: 'user', command: 'seq', args: ['-f', '%0299g', '1', '2000'], cols: 20, rows: 3 }).id;
    // A screen of 200 x 60 cells keeps 20 bytes a cell, 240 000 bytes, once four times that behind: 1.7 MB here.
    const forLargeText = flood(200, 60, 250_000);
    await Promise.all([exited(forText), exited(forSnapshot), exited(forLargeText)]);
    const drawn = new Map<number, number>();
    let made = 0;
    const local = new ScreenService(service, {
      createScreen: (options) => {
        const screen = new ScreenMirror(options);
        const index = made++;
        const write = screen.write.bind(screen);
        screen.write = (data) => {
          drawn.set(index, (drawn.get(index) ?? 0) + data.length);
          return write(data);
        };
        return screen;
      },
    });
    try {
      expect((await local.text(forText)).text).toBe('99999\n100000');
      const snapshot = await local.snapshot(forSnapshot);
      expect(snapshot.screen).toContain(`${'0'.repeat(295)}2000`);
      expect((await local.text(forLargeText)).text.endsWith('249999\n250000')).toBe(true);
      const KiB = 1024;
      // The text read drew its last 32 KiB or so; the snapshot its last 256 KiB, as many lines of history as that holds.
      expect(drawn.get(0)).toBeLessThan(48 * KiB);
      expect(drawn.get(1)).toBeGreaterThan(224 * KiB);
      expect(drawn.get(1)).toBeLessThan(288 * KiB);
      // The larger screen's text read kept enough for all its cells.
      expect(drawn.get(2)).toBeGreaterThan(230_000);
      expect(drawn.get(2)).toBeLessThan(260_000);
    } finally {
      local.dispose();
      await Promise.all([service.remove(forText), service.remove(forSnapshot), service.remove(forLargeText)]);
    }
  });

  it('moves on when the terminal rejects a write: reported once, snapshots resolve, later output is mirrored', async () => {
    const reports: string[] = [];
    let failures = 0;
    const local = new ScreenService(service, {
      // A terminal whose first write fails, as xterm.js's does once too much output is pending.
      createScreen: (options) => {
        const screen = new ScreenMirror(options);
        const write = screen.write.bind(screen);
        screen.write = (data) => (failures++ === 0 ? Promise.reject(new Error('write data discarded')) : write(data));
        return screen;
      },
      reportError: (error, context) => reports.push(`${context}: ${(error as Error).message}`),
    });
    try {
      const info = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'], cols: 40, rows: 5 });
      const logged = (text: string | RegExp) =>
        new Promise<void>((resolve) => {
          const log = () => Buffer.from(service.read(info.id).data).toString();
          const check = () => (typeof text === 'string' ? log().includes(text) : text.test(log()));
          if (check()) return resolve();
          const off = service.on('pty.data', () => {
            if (check()) {
              off();
              resolve();
            }
          });
        });
      service.write(info.id, 'echo first-$((1+1))\r');
      await logged('first-2\r\n');
      const first = await local.snapshot(info.id);
      expect(first.cursor).toBeGreaterThan(0);
      service.write(info.id, 'echo second-$((2+3))\r');
      // Up to the prompt that follows, so nothing arrives between the snapshot and the check of its cursor.
      await logged(/second-5\r\n[^\n]*[$#] $/);
      const second = await local.snapshot(info.id);
      expect(second.cursor).toBe(service.read(info.id, { maxBytes: 1 }).end);
      expect(second.screen).toContain('second-5');
      expect(failures).toBeGreaterThan(1);
      expect(reports).toEqual([
        `the screen mirror of session ${info.id} failed to parse output; later failures of this mirror are not reported: write data discarded`,
      ]);
      await service.remove(info.id);
    } finally {
      local.dispose();
    }
  });
});
