import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from './pty-service.js';
import type { PtyService } from './types.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * Every byte a process wrote is in the log when pty.exited fires. Raw
 * node-pty loses the tail of an 8 KB `cat` in most runs on Linux (see
 * pty-process.ts), so a few hundred runs per size make a loss show up.
 */
const RUNS = 200;
const PARALLEL = 8;
const SIZES = [1024, 4096, 8192, 64 * 1024, 1024 * 1024];

let dir: string;
let service: PtyService;

/** Text with newlines and multi-byte characters, exactly `size` bytes. */
function makeFile(size: number): Buffer {
  const line = 'ptydeck lossless exit ✓ é 😀 0123456789 abcdefghijklmnopqrstuvwxyz\n';
  const lines: Buffer[] = [];
  for (let i = 0, total = 0; total < size; i++) {
    lines.push(Buffer.from(`${i} ${line}`));
    total += lines[i]!.length;
  }
  const bytes = Buffer.concat(lines).subarray(0, size);
  bytes[size - 1] = 0x0a;
  return bytes;
}

/** What the terminal shows for `file`: ONLCR turns each \n into \r\n. */
function onTerminal(file: Buffer): Buffer {
  return Buffer.from(file.toString('latin1').replaceAll('\n', '\r\n'), 'latin1');
}

interface RunResult {
  ok: boolean;
  detail: string;
}

/** Runs `command`, and at pty.exited compares the whole log with `expected`. */
function runOnce(command: string, args: string[], expected: Buffer): Promise<RunResult> {
  return new Promise((resolve) => {
    let id = '';
    let exitedSeen = false;
    let dataAfterExit = 0;
    let streamed = 0;
    const offData = service.on('pty.data', (event) => {
      if (event.id !== id) return;
      if (exitedSeen) dataAfterExit += event.data.length;
      streamed += event.data.length;
    });
    const offExit = service.on('pty.exited', (event) => {
      if (event.id !== id) return;
      exitedSeen = true;
      const result = service.read(id, { cursor: 0 });
      const got = Buffer.from(result.data);
      const ok = event.exitCode === 0 && got.equals(expected) && streamed === expected.length;
      // Check for late data after the listeners of this tick: then forget the session.
      setImmediate(() => {
        offData();
        offExit();
        const detail = `exit=${event.exitCode} got=${got.length} streamed=${streamed} expected=${expected.length} lateBytes=${dataAfterExit}`;
        void service.remove(id).then(() => resolve({ ok: ok && dataAfterExit === 0, detail }));
      });
    });
    id = service.create({ command, args, source: 'agent' }).id;
  });
}

async function runMany(count: number, command: string, args: string[], expected: Buffer): Promise<string[]> {
  const failures: string[] = [];
  for (let done = 0; done < count; done += PARALLEL) {
    const batch = Array.from({ length: Math.min(PARALLEL, count - done) }, () => runOnce(command, args, expected));
    for (const result of await Promise.all(batch)) if (!result.ok) failures.push(result.detail);
  }
  return failures;
}

beforeAll(() => {
  dir = fileTempDir('ptydeck-lossless-');
  // A short grace: removing the background-holder sessions needs SIGKILL for the sleep that ignores SIGHUP.
  service = createPtyService({ killGraceMs: 200 });
});
afterAll(async () => {
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('lossless exit', () => {
  for (const size of SIZES) {
    it(`keeps every byte of \`cat\` of ${size} bytes, ${RUNS} runs`, async () => {
      const file = path.join(dir, `f${size}`);
      const content = makeFile(size);
      writeFileSync(file, content);
      const failures = await runMany(RUNS, 'cat', [file], onTerminal(content));
      expect(failures).toEqual([]);
    }, 120_000);
  }

  it('keeps every byte when a background process still holds the terminal at exit', async () => {
    const file = path.join(dir, 'bg');
    const content = makeFile(64 * 1024);
    writeFileSync(file, content);
    // The backgrounded sleep ignores the hangup and keeps the slave open, so
    // no EOF comes: the exit path must drain what cat wrote without it.
    const failures = await runMany(24, 'bash', ['-c', `cat '${file}'; trap '' HUP; sleep 1000 & exit 0`], onTerminal(content));
    expect(failures).toEqual([]);
  }, 120_000);
});
