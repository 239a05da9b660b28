import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { waitForExit, waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { BackgroundPacing } from './background-pacing.js';
import { ScreenMirror } from './screen-mirror.js';
import { ScreenService } from './screen-service.js';
import { ScreenWorker } from './screen-worker-host.js';
import { SCREEN_WORKER_URL } from './screen-worker-url.js';

let service: PtyService;

beforeAll(() => {
  service = createPtyService({ env: isolatedEnv() });
});

afterAll(async () => {
  await service.dispose();
});

/** A ScreenService whose worker threads the test can see (and kill). */
function workerScreens(reports: string[] = []): { screens: ScreenService; workers: Worker[] } {
  const workers: Worker[] = [];
  const screens = new ScreenService(service, {
    worker: {
      spawn: () => {
        const worker = new Worker(SCREEN_WORKER_URL);
        workers.push(worker);
        return worker;
      },
    },
    reportError: (error, context) => reports.push(`${context}: ${(error as Error).message}`),
  });
  return { screens, workers };
}

function exitOf(worker: Worker): Promise<number> {
  return new Promise((resolve) => worker.once('exit', resolve));
}

describe('ScreenService with the screen worker', () => {
  it("says when the worker's warm-up is over, and a screen made meanwhile answers as it comes", async () => {
    const { screens, workers } = workerScreens();
    try {
      const info = service.create({ source: 'user', command: 'sh', args: ['-c', 'echo warm-$((20+3))'], cols: 40, rows: 5 });
      await waitForExit(service, info.id);
      const warmed = screens.warmedUp();
      // The warm-up yields to real work: the screen's text comes whether or not it is over.
      expect((await screens.text(info.id)).text).toContain('warm-23');
      await warmed;
      expect(workers).toHaveLength(1);
      // Without a worker there is nothing to wait for.
      await new ScreenService(service, { createScreen: (options) => new ScreenMirror(options) }).warmedUp();
    } finally {
      screens.dispose();
    }
  });

  it('renders the same screens as parsing in this thread, resizes mid-stream included', async () => {
    const { screens, workers } = workerScreens();
    const inThread = new ScreenService(service, { createScreen: (options) => new ScreenMirror(options) });
    try {
      const info = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'], cols: 20, rows: 6 });
      // Far right stops at the last column: where E and F land shows the size each was parsed at.
      service.write(info.id, "for i in $(seq 1 300); do printf '\\e[32m%04d\\e[0m line\\n' $i; done; printf '\\e[999CE\\n'\r");
      await waitForOutput(service, info.id, /E\r\n[^\n]*[$#] $/);
      service.resize(info.id, 50, 8);
      service.write(info.id, "printf '\\e[999CF\\n'; echo done-$((3+4))\r");
      await waitForOutput(service, info.id, /done-7\r\n[^\n]*[$#] $/);
      service.resize(info.id, 30, 4);

      const [viaWorker, local] = await Promise.all([screens.snapshot(info.id), inThread.snapshot(info.id)]);
      expect(viaWorker).toEqual(local);
      expect(viaWorker.screen).toContain('0300');
      expect(await screens.text(info.id)).toEqual(await inThread.text(info.id));
      expect(workers).toHaveLength(1);
      await service.remove(info.id);
    } finally {
      screens.dispose();
      inThread.dispose();
    }
  });

  it('parses output as it arrives, so the screen is ready before anyone asks', async () => {
    const { screens } = workerScreens();
    try {
      const info = service.create({ source: 'user', command: 'printf', args: ['eager\\r\\n'], cols: 20, rows: 4 });
      await waitForExit(service, info.id);
      const end = service.read(info.id, { maxBytes: 1 }).end;
      await expect.poll(() => screens.parsedThrough(info.id), { timeout: 20_000, interval: 10 }).toBe(end);
      await service.remove(info.id);
    } finally {
      screens.dispose();
    }
  });

  it("leaves a chunk of output to its data event's later listeners (the panels' sends) before posting it to the worker", async () => {
    // An echo is sent to the panels by a listener after the screens' one: the worker's thread, woken by a post
    // made inside the event, took the CPU from that send on two busy cores.
    let posts = 0;
    const screens = new ScreenService(service, {
      worker: {
        spawn: () => {
          const worker = new Worker(SCREEN_WORKER_URL);
          const post = worker.postMessage.bind(worker);
          worker.postMessage = (...args: Parameters<Worker['postMessage']>) => {
            posts++;
            post(...args);
          };
          return worker;
        },
      },
    });
    try {
      let postsBeforeOutput: number | undefined;
      let postsAtCreate = 0;
      const info = service.create({ source: 'user', command: 'printf', args: ['echoed'], cols: 20, rows: 4 });
      postsAtCreate = posts;
      const off = service.on('pty.data', (event) => {
        if (event.id === info.id) postsBeforeOutput ??= posts - postsAtCreate;
      });
      await waitForExit(service, info.id);
      off();
      expect(postsBeforeOutput).toBe(0);
      const end = service.read(info.id, { maxBytes: 1 }).end;
      await expect.poll(() => screens.parsedThrough(info.id), { timeout: 20_000, interval: 10 }).toBe(end);
      await service.remove(info.id);
    } finally {
      screens.dispose();
    }
  });

  it("answers an exited session's reads from its frozen screen as a terminal would", async () => {
    const { screens } = workerScreens();
    const inThread = new ScreenService(service, { createScreen: (options) => new ScreenMirror(options) });
    try {
      const info = service.create({
        source: 'user',
        command: 'bash',
        args: ['--norc', '--noprofile', '-c', 'for i in $(seq 1 2000); do printf "\\e[3%dm%05d\\e[0m worker line\\n" $((i % 8)) $i; done'],
        cols: 40,
        rows: 6,
      });
      await waitForExit(service, info.id);
      const end = service.read(info.id, { maxBytes: 1 }).end;
      // The freeze goes to the worker right behind the last slice: every read asked from now on comes after it.
      await expect.poll(() => screens.parsedThrough(info.id), { timeout: 20_000, interval: 10 }).toBe(end);
      const [viaWorker, local] = await Promise.all([screens.snapshot(info.id), inThread.snapshot(info.id)]);
      expect(viaWorker).toEqual(local);
      expect(viaWorker.screen).toContain('02000');
      expect(await screens.text(info.id)).toEqual(await inThread.text(info.id));
      await service.remove(info.id);
    } finally {
      screens.dispose();
      inThread.dispose();
    }
  });

  it('recovers from a dead worker: reported, and the screen parsed again from the log in a new one', async () => {
    const reports: string[] = [];
    const { screens, workers } = workerScreens(reports);
    try {
      const info = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'], cols: 30, rows: 4 });
      service.write(info.id, 'echo before-$((1+1))\r');
      await waitForOutput(service, info.id, /before-2\r\n[^\n]*[$#] $/);
      expect((await screens.text(info.id)).text).toContain('before-2');

      const died = exitOf(workers[0]!);
      void workers[0]!.terminate();
      // Asked while the worker dies: the read waits for the new screen instead of failing.
      const during = screens.text(info.id);
      await died;
      expect((await during).text).toContain('before-2');

      service.write(info.id, 'echo after-$((2+3))\r');
      await waitForOutput(service, info.id, /after-5\r\n[^\n]*[$#] $/);
      const after = await screens.text(info.id);
      expect(after.text).toContain('before-2');
      expect(after.text).toContain('after-5');
      expect(after.cursor).toBe(service.read(info.id, { maxBytes: 1 }).end);
      expect(workers).toHaveLength(2);
      expect(reports).toEqual([expect.stringMatching(/^the screen worker stopped \(1 of 3\); screens are parsed again from their logs in a new worker/)]);
      await service.remove(info.id);
    } finally {
      screens.dispose();
    }
  });

  it('after three worker deaths parses in this thread lazily: not as output arrives, but when the screen is read', async () => {
    const reports: string[] = [];
    // A worker that cannot run: it dies as soon as it starts, every time.
    const screens = new ScreenService(service, {
      worker: { spawn: () => new Worker('process.exit(1)', { eval: true }) },
      reportError: (_error, context) => reports.push(context),
    });
    try {
      // The first read outlives three workers and is answered by a terminal in this thread.
      const first = service.create({ source: 'user', command: 'printf', args: ['first'], cols: 20, rows: 4 });
      await waitForExit(service, first.id);
      expect((await screens.text(first.id)).text).toBe('first');
      expect(reports.at(-1)).toMatch(/^the screen worker stopped \(3 of 3\); screens are parsed on the main thread from now on/);

      // Whether output is parsed as it arrives is the screen's pacing's choice, made for each chunk (eager: queued for
      // a parse after a short delay; lazy: only a quiet timer, or a read). Asked of the pacing rather than timed: the
      // delay and the quiet time are both tens of milliseconds, which a loaded machine blurs.
      const eager = vi.spyOn(BackgroundPacing.prototype as unknown as { queueEager(): void }, 'queueEager');
      const grew = vi.spyOn(BackgroundPacing.prototype, 'grew');
      const second = service.create({ source: 'user', command: 'printf', args: ['second'], cols: 20, rows: 4 });
      await waitForExit(service, second.id);
      expect(grew).toHaveBeenCalled();
      expect(eager).not.toHaveBeenCalled();
      expect((await screens.text(second.id)).text).toBe('second');
      await service.remove(first.id);
      await service.remove(second.id);
    } finally {
      vi.restoreAllMocks();
      screens.dispose();
    }
  });

  it('terminates its worker when disposed', async () => {
    const { screens, workers } = workerScreens();
    const info = service.create({ source: 'user', command: 'printf', args: ['x'], cols: 20, rows: 4 });
    await waitForExit(service, info.id);
    expect((await screens.text(info.id)).text).toBe('x');
    const exited = exitOf(workers[0]!);
    screens.dispose();
    await exited;
    expect(await screens.text(info.id)).toEqual({ text: '', altScreen: false, cursor: 0 });
    await service.remove(info.id);
  });
});

describe('ScreenWorker', () => {
  it('hands a slice read into its buffer to the worker whole, and gets the buffer back with the answer to fill again', async () => {
    const worker = new ScreenWorker({
      reportError: (error) => {
        throw error;
      },
    });
    try {
      const screen = worker.createScreen({ cols: 20, rows: 3 });
      const bytes = new TextEncoder().encode('hello\r\nworld');
      const buffer = worker.sliceBuffer(bytes.length)!;
      buffer.set(bytes);
      const slice = buffer.subarray(0, bytes.length);
      const written = screen.write(slice);
      // Transferred, not copied: the view is left empty.
      expect(slice.length).toBe(0);
      await written;
      expect((await screen.text()).text).toBe('hello\nworld');
      // The same memory, back from the worker: the next slice's buffer still holds what this one wrote.
      const again = worker.sliceBuffer(bytes.length)!;
      expect(new TextDecoder().decode(again.subarray(0, bytes.length))).toBe('hello\r\nworld');
    } finally {
      await worker.dispose();
    }
  });

  it("answers a read of one screen between the pieces of another screen's background write", async () => {
    const worker = new Worker(SCREEN_WORKER_URL);
    try {
      const answered: number[] = [];
      const both = new Promise<void>((resolve) =>
        worker.on('message', (reply: { req: number }) => {
          if (answered.push(reply.req) === 2) resolve();
        }),
      );
      worker.postMessage({ type: 'open', screen: 1, cols: 80, rows: 24, scrollback: 100 });
      worker.postMessage({ type: 'open', screen: 2, cols: 80, rows: 24, scrollback: 100 });
      // 128 KiB: eight of the worker's background pieces.
      const catchUp = new Uint8Array(Buffer.from(`${'x'.repeat(78)}\r\n`.repeat(1638)));
      worker.postMessage({ type: 'write', screen: 1, req: 1, data: catchUp, skim: false, background: true }, [catchUp.buffer]);
      worker.postMessage({ type: 'text', screen: 2, req: 2 });
      await both;
      expect(answered).toEqual([2, 1]);
    } finally {
      await worker.terminate();
    }
  });
});
