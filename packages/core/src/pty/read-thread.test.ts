import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { openDescriptors } from '../testing/leak-meters.js';
import { spawnPtyProcess, type PtyExit } from './pty-process.js';
import { createPtyService } from './pty-service.js';
import { LoopWatch } from './loop-watch.js';
import { ReadThread, type ReadThreadSink, type ThreadRead } from './read-thread.js';
import { BATCH_BYTES } from './read-thread-protocol.js';
import { READ_THREAD_URL } from './read-thread-url.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { busy, turnMeter } from '../testing/loop-turns.js';
import { readAll, waitForExit } from '../testing/session-waits.js';
import type { PtyService } from './types.js';

/** A read thread that counts its handovers, and whose worker a test can reach. */
function watchedThread() {
  const watch = { adopted: 0, quiet: 0, worker: undefined as Worker | undefined };
  const thread = new ReadThread({ spawn: (workerData, transferList) => (watch.worker = new Worker(READ_THREAD_URL, { workerData, transferList })) });
  const adopt = thread.adopt.bind(thread);
  thread.adopt = (fd: number, sink: ReadThreadSink): ThreadRead => {
    watch.adopted++;
    return adopt(fd, {
      ...sink,
      quiet: () => {
        watch.quiet++;
        sink.quiet();
      },
    });
  };
  threads.push(thread);
  return { thread, watch };
}

/** What `seq from to` prints on a terminal (which turns each \n into \r\n). */
const seqText = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\r\n`).join('');

let threads: ReadThread[] = [];
let service: PtyService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  for (const thread of threads) thread.dispose();
  threads = [];
});

/** Runs `sh -c script` on a terminal the thread reads once 64 KiB flooded; resolves at exit with every chunk delivered before it. */
function run(script: string, thread: ReadThread): Promise<{ output: string; exit: PtyExit; chunksAfterExit: number }> {
  const chunks: Buffer[] = [];
  let exit: PtyExit | undefined;
  let chunksAfterExit = 0;
  return new Promise((resolve) => {
    spawnPtyProcess(
      { file: 'sh', args: ['-c', script], cwd: '/', env: isolatedEnv() as Record<string, string>, cols: 80, rows: 24, threadReading: { thread: () => thread, afterBytes: 64 * 1024 } },
      (chunk) => {
        if (exit) chunksAfterExit++;
        chunks.push(chunk);
      },
      (reported) => {
        exit = reported;
        // Anything delivered after this would be a byte reported after the exit: counted, on the next turn.
        setImmediate(() => resolve({ output: Buffer.concat(chunks).toString('latin1'), exit: reported, chunksAfterExit }));
      },
    );
  });
}

describe('the read thread', () => {
  it('reads a flood whole and in order, and the exit comes after its last byte', async () => {
    const { thread, watch } = watchedThread();
    const { output, exit, chunksAfterExit } = await run('seq 1 300000', thread);
    expect(watch.adopted).toBeGreaterThanOrEqual(1);
    expect(output).toBe(seqText(1, 300000));
    expect(exit.exitCode).toBe(0);
    expect(chunksAfterExit).toBe(0);
  });

  it('gives a terminal back to the event loop when it is quiet, and takes it again when it floods again', async () => {
    const { thread, watch } = watchedThread();
    // The pause is what a quiet terminal is (QUIET_MS is 20 ms): the thread must give it back in it.
    const { output } = await run('seq 1 100000; sleep 0.3; seq 100001 200000; sleep 0.3; printf end', thread);
    expect(output).toBe(seqText(1, 200000) + 'end');
    // Each seq is a flood the thread takes, and each pause gives it back. On a loaded machine a
    // seq can itself stall past QUIET_MS, which is one more handover each way: what is checked is
    // that every adoption ended with the terminal back on the loop.
    expect(watch.adopted).toBeGreaterThanOrEqual(2);
    expect(watch.quiet).toBe(watch.adopted);
  });

  it('takes a flood whose reads a stalled loop held back: a gap the loop was not free for is no pause', async () => {
    const { thread, watch } = watchedThread();
    const loop = new LoopWatch(25);
    try {
      // A main thread busy 60 ms every 15 chunks (a slow listener, a GC): every 60 KiB a gap past QUIET_MS,
      // which on the wall clock alone ended the run before it reached the 256 KiB that makes a flood.
      let chunks = 0;
      let total = 0;
      await new Promise<void>((resolve) => {
        spawnPtyProcess(
          { file: 'head', args: ['-c', String(4 * 1024 * 1024), '/dev/zero'], cwd: '/', env: isolatedEnv() as Record<string, string>, cols: 80, rows: 24, threadReading: { thread: () => thread, afterBytes: 256 * 1024, loop } },
          (chunk) => {
            total += chunk.length;
            if (++chunks % 15 === 0) busy(60);
          },
          () => resolve(),
        );
      });
      expect(total).toBe(4 * 1024 * 1024);
      expect(watch.adopted).toBeGreaterThanOrEqual(1);
    } finally {
      loop.dispose();
    }
  });

  it('hands small batches on in buffers of their own size, not in a 64 KiB one each', async () => {
    const { thread, watch } = watchedThread();
    // A stream the thread catches up with on every pass: 8 KiB, a 2 ms pause, 300 times (no pause of 20 ms).
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve) => {
      spawnPtyProcess(
        { file: 'sh', args: ['-c', 'for i in $(seq 1 300); do head -c 8192 /dev/zero; sleep 0.002; done'], cwd: '/', env: isolatedEnv() as Record<string, string>, cols: 80, rows: 24, threadReading: { thread: () => thread, afterBytes: 64 * 1024 } },
        (chunk) => chunks.push(chunk),
        () => resolve(),
      );
    });
    expect(watch.adopted).toBeGreaterThanOrEqual(1);
    expect(chunks.reduce((sum, chunk) => sum + chunk.length, 0)).toBe(300 * 8192);
    const oversized = chunks.filter((chunk) => chunk.buffer.byteLength > 2 * chunk.length);
    expect(oversized.map((chunk) => `${chunk.length} in ${chunk.buffer.byteLength}`)).toEqual([]);
  });

  it('hands a flood on a slice per turn of the event loop, however far the thread read ahead', async () => {
    const { thread, watch } = watchedThread();
    // A main thread slower than the flood (2 ms a chunk): the thread reads ahead, up to 4 MiB.
    const meter = turnMeter();
    const bytes = await new Promise<number>((resolve) => {
      let total = 0;
      spawnPtyProcess(
        { file: 'head', args: ['-c', String(8 * 1024 * 1024), '/dev/zero'], cwd: '/', env: isolatedEnv() as Record<string, string>, cols: 80, rows: 24, threadReading: { thread: () => thread, afterBytes: 64 * 1024 } },
        (chunk) => {
          total += chunk.length;
          meter.add(chunk.length);
          busy(2);
        },
        () => resolve(total),
      );
    });
    const { mostPerTurn } = meter.stop();
    // Once at least (a writer stalled past QUIET_MS on a loaded machine is handed back and taken again).
    expect(watch.adopted).toBeGreaterThanOrEqual(1);
    expect(bytes).toBe(8 * 1024 * 1024);
    // 256 KiB a turn, plus the batch (up to 64 KiB) that crossed it.
    expect(mostPerTurn).toBeLessThanOrEqual(320 * 1024);
  });

  it('a terminal that ends with MiBs read ahead hands them on a slice per turn too, then exits after the last', async () => {
    const { thread } = watchedThread();
    // A main thread far slower than the flood (8 ms a chunk), so the thread is up to 4 MiB ahead when the
    // writer is killed and node-pty closes the terminal (at most 200 ms after the exit).
    const meter = turnMeter();
    let total = 0;
    let afterExit = 0;
    let killed = false;
    const exit = await new Promise<PtyExit>((resolve) => {
      let exited: PtyExit | undefined;
      const child = spawnPtyProcess(
        { file: 'head', args: ['-c', String(64 * 1024 * 1024), '/dev/zero'], cwd: '/', env: isolatedEnv() as Record<string, string>, cols: 80, rows: 24, threadReading: { thread: () => thread, afterBytes: 64 * 1024 } },
        (chunk) => {
          if (exited) afterExit++;
          total += chunk.length;
          meter.add(chunk.length);
          if (!killed && total >= 1024 * 1024) {
            killed = true;
            process.kill(child.pid, 'SIGKILL');
          }
          busy(8);
        },
        (reported) => {
          exited = reported;
          setImmediate(() => resolve(reported));
        },
      );
    });
    const { mostPerTurn } = meter.stop();
    expect(exit.signal).toBe('SIGKILL');
    expect(afterExit).toBe(0);
    // The thread had read well ahead when the terminal closed, and that was handed on in slices.
    expect(total).toBeGreaterThan(1024 * 1024);
    expect(mostPerTurn).toBeLessThanOrEqual(320 * 1024);
  });

  it('a session removed while the thread reads it: what it printed arrives in order, then the exit; its fd is closed', async () => {
    service = createPtyService({ env: isolatedEnv() });
    const before = openDescriptors();
    const { id } = service.create({ command: 'seq', args: ['1', '100000000'], source: 'user' });
    await new Promise<void>((resolve) => {
      const off = service!.on('pty.data', () => {
        if (service!.read(id, { maxBytes: 1 }).end < 8 * 1024 * 1024) return;
        off();
        resolve();
      });
    });
    await service.kill(id, 'SIGKILL');
    await waitForExit(service, id);
    const output = readAll(service, id).toString('latin1');
    // The log keeps the last 4 MiB: every line from the first whole one on, contiguous (the thread's
    // last batch came before anything read after it was taken back).
    const lines = output.split('\r\n');
    lines.shift(); // the line the log's trim cut
    lines.pop(); // the line the kill cut
    const first = Number(lines[0]);
    expect(first).toBeGreaterThan(1);
    expect(lines.length).toBeGreaterThan(100_000);
    expect(lines.findIndex((line, i) => line !== String(first + i))).toBe(-1);
    await service.remove(id);
    const after = openDescriptors();
    const leaked = [...after].filter(([fd, target]) => before.get(fd) !== target && /ptmx|pts/.test(target));
    expect(leaked).toEqual([]);
  });

  it("a flood's batches go back to the thread once the log copied them or trimmed a full one it kept, and the log stays whole while they are filled again", async () => {
    // How many batches are lent depends on how full the thread's batches were, which depends on how
    // fast the main thread kept up (on a fast machine most come as small copies, never lent): so the
    // test accounts for each lent batch rather than counting them.
    const given: ArrayBuffer[] = [];
    const lent: ArrayBuffer[] = [];
    const reuse = ReadThread.prototype.reuse;
    const adopt = ReadThread.prototype.adopt;
    ReadThread.prototype.reuse = function (this: ReadThread, buffer: ArrayBuffer) {
      given.push(buffer);
      reuse.call(this, buffer);
    };
    ReadThread.prototype.adopt = function (this: ReadThread, fd: number, sink: ReadThreadSink) {
      return adopt.call(this, fd, {
        ...sink,
        data: (chunk, reusable) => {
          if (reusable) lent.push(chunk.buffer as ArrayBuffer);
          sink.data(chunk, reusable);
        },
      });
    };
    try {
      const logBytes = 4 * 1024 * 1024;
      service = createPtyService({ env: isolatedEnv(), sessionLogBytes: logBytes });
      const { id } = service.create({ command: 'seq', args: ['1', '3000000'], source: 'user' });
      // Mid-flood, every 2 MiB: the retained log is contiguous lines (a batch handed back while the
      // log still held it would be filled with later output and break the sequence).
      let checked = 0;
      let broken = '';
      const checkLog = () => {
        const lines = readAll(service!, id).toString('latin1').split('\r\n');
        lines.shift();
        lines.pop();
        const first = Number(lines[0]);
        const bad = lines.findIndex((line, i) => line !== String(first + i));
        if (bad !== -1) broken ||= `after line ${lines[bad - 1]}: ${JSON.stringify(lines[bad]?.slice(0, 40))}`;
      };
      const off = service.on('pty.data', (event) => {
        if (event.id !== id || event.cursor + event.data.length < (checked + 1) * 2 * 1024 * 1024) return;
        checked++;
        checkLog();
      });
      await waitForExit(service, id);
      off();
      checkLog();
      expect(broken).toBe('');
      expect(checked).toBeGreaterThan(5);
      // About 20 MiB through a 4 MiB log: every lent batch went back, at most once each time it was lent, but
      // for the full ones the log still keeps (OutputLog.adopt): at most what fills its 4 MiB.
      expect(given.length).toBeGreaterThan(0);
      const times = (list: ArrayBuffer[]) => list.reduce((counts, buffer) => counts.set(buffer, (counts.get(buffer) ?? 0) + 1), new Map<ArrayBuffer, number>());
      const lentTimes = times(lent);
      for (const [buffer, count] of times(given)) expect(count).toBeLessThanOrEqual(lentTimes.get(buffer) ?? 0);
      expect(lent.length - given.length).toBeLessThanOrEqual(Math.ceil(logBytes / (BATCH_BYTES - 4096)) + 1);
      expect(readAll(service, id).toString('latin1').endsWith('2999999\r\n3000000\r\n')).toBe(true);
    } finally {
      ReadThread.prototype.reuse = reuse;
      ReadThread.prototype.adopt = adopt;
    }
  });

  it('does not keep a process alive: one whose flood ended exits without disposing anything', () => {
    // The built service (a worker thread cannot run TypeScript, and the thread is what is under test).
    const service = fileURLToPath(new URL('../../dist/pty/pty-service.js', import.meta.url));
    const script = `
      const { createPtyService } = await import(${JSON.stringify(service)});
      const service = createPtyService({ env: JSON.parse(process.env.TEST_ENV) });
      const { id } = service.create({ command: 'head', args: ['-c', '4000000', '/dev/zero'], source: 'user' });
      await new Promise((resolve) => service.on('pty.exited', (event) => event.id === id && resolve()));
      console.log('ended at', service.read(id, { maxBytes: 1 }).end);
    `;
    // A file, not -e: a process evaluating -e exited even when the thread's port held its loop.
    const file = join(fileTempDir('ptydeck-read-thread-'), 'flood.mjs');
    writeFileSync(file, script);
    const child = spawnSync(process.execPath, [file], {
      env: { ...process.env, TEST_ENV: JSON.stringify(isolatedEnv()) },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.stdout).toContain('ended at 4000000');
    // Killed by the timeout, a child reports a signal instead of a status.
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
  });

  it('a read thread that dies gives its terminals back to the event loop, which reads them to the end', async () => {
    const { thread, watch } = watchedThread();
    let killed = false;
    const chunks: Buffer[] = [];
    const exited = new Promise<PtyExit>((resolve) => {
      spawnPtyProcess(
        { file: 'seq', args: ['1', '1000000'], cwd: '/', env: isolatedEnv() as Record<string, string>, cols: 80, rows: 24, threadReading: { thread: () => thread, afterBytes: 64 * 1024 } },
        (chunk) => {
          chunks.push(chunk);
          if (!killed && watch.adopted > 0) {
            killed = true;
            void watch.worker!.terminate();
          }
        },
        resolve,
      );
    });
    const exit = await exited;
    expect(exit.exitCode).toBe(0);
    expect(thread.alive).toBe(false);
    // The last line came through the event loop after the thread died.
    expect(Buffer.concat(chunks).toString('latin1').endsWith('999999\r\n1000000\r\n')).toBe(true);
  });
});
