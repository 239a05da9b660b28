import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { plantRecord } from '../testing/lost-records.js';
import { readAll, waitForExit, waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { UnsafeStateError } from '../common/discovery.js';
import type { LostRecord } from '../pty/lost-record.js';
import { openSessionStore, sessionStoreSetting, type SessionStoreOptions } from './session-store.js';
import { HEADER_BYTES, metaPath, timelinePath } from './store-format.js';
import { until } from '../testing/poll-until.js';
import { openStoreDisk } from './store-disk.js';
import { STORE_DISK_URL } from './store-disk-url.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function storeDir(): string {
  return join(fileTempDir('ptydeck-store-'), 'sessions');
}

/** A real service recorded into a fresh store; a long flushMs, so only flush() writes and each test says when. */
function recorded(options: Partial<SessionStoreOptions> = {}, agentCursorOf: (id: string) => number | null = () => null) {
  const dir = options.dir ?? storeDir();
  const service = createPtyService({ env: isolatedEnv() });
  const store = openSessionStore({ flushMs: 3_600_000, ...options, dir });
  const stop = store.record(service, { agentCursorOf });
  cleanups.push(async () => {
    stop();
    store.dispose();
    await service.dispose();
  });
  return { dir, service, store };
}

/** What a host started after this one would find. */
function loadAfresh(dir: string, onError?: SessionStoreOptions['onError']): Promise<LostRecord[]> {
  return openSessionStore({ dir, onError }).load();
}

function recordOf(records: LostRecord[], id: string): LostRecord {
  const record = records.find((r) => r.info.id === id);
  if (!record) throw new Error(`no record of ${id} among ${records.map((r) => r.info.id).join(', ')}`);
  return record;
}

/** The service's log from `start` on: what a record starting there must hold, byte for byte. */
function logFrom(service: PtyService, id: string, start: number): Buffer {
  const read = service.read(id, { cursor: start });
  expect(read.cursor).toBe(start);
  return Buffer.from(read.data);
}

async function run(service: PtyService, command: string): Promise<string> {
  const { id } = service.create({ command: 'bash', args: ['-c', command], source: 'agent' });
  await waitForExit(service, id);
  return id;
}

describe('session store', () => {
  it('keeps files 0600 in a 0700 directory, and a session comes back byte for byte after flush', async () => {
    const { dir, service, store } = recorded({}, () => 7);
    const id = await run(service, 'seq 1 3000; printf "caf\\xc3\\xa9\\n"');
    await store.flush();

    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files.sort()).toEqual([`${id}.json`, `${id}.out`]);
    for (const file of files) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);

    const record = recordOf(await loadAfresh(dir), id);
    expect(record.info).toMatchObject({ id, status: 'exited', exitCode: 0, source: 'agent' });
    expect(record.start).toBe(0);
    expect(Buffer.from(record.output).equals(readAll(service, id))).toBe(true);
    expect(record.readEnd).toBe(record.start + record.output.length);
    expect(record.agentCursor).toBe(7);
  });

  it('writes a running session as running, and writes it again once it exits', async () => {
    const { dir, service, store } = recorded();
    const { id } = service.create({ command: 'cat', source: 'user' });
    service.write(id, 'first line\r');
    await waitForOutput(service, id, 'first line\r\n');
    await store.flush();
    const running = recordOf(await loadAfresh(dir), id);
    expect(running.info.status).toBe('running');
    expect(Buffer.from(running.output).toString()).toContain('first line');

    service.write(id, 'last line\r\x04');
    await waitForExit(service, id);
    await store.flush();
    const exited = recordOf(await loadAfresh(dir), id);
    expect(exited.info.status).toBe('exited');
    expect(Buffer.from(exited.output).equals(readAll(service, id))).toBe(true);
  });

  it('keeps a session\'s last sessionBytes, at their absolute cursor, through appends and compactions', async () => {
    const cap = 10_000;
    const { dir, service, store } = recorded({ sessionBytes: cap });
    const { id } = service.create({ command: 'cat', source: 'user' });
    // Each step is under the cap, so it is appended; the file passes twice the cap and is compacted.
    for (let step = 0; step < 8; step++) {
      const line = `step ${step} ${'x'.repeat(2_000)}`;
      service.write(id, `${line}\r`);
      await waitForOutput(service, id, `${line}\r\n${line}\r\n`);
      await store.flush();
      expect(statSync(join(dir, `${id}.out`)).size).toBeLessThanOrEqual(HEADER_BYTES + 2 * cap);
    }
    const record = recordOf(await loadAfresh(dir), id);
    const end = service.read(id, { maxBytes: 1 }).end;
    expect(record.output.length).toBeLessThanOrEqual(2 * cap);
    expect(record.output.length).toBeGreaterThanOrEqual(cap);
    expect(record.start + record.output.length).toBe(end);
    expect(Buffer.from(record.output).equals(logFrom(service, id, record.start))).toBe(true);

    // More than the cap at once: the file starts over with the last cap bytes.
    const big = await run(service, 'seq 1 20000');
    await store.flush();
    const tail = recordOf(await loadAfresh(dir), big);
    expect(tail.output.length).toBe(cap);
    expect(tail.start).toBe(readAll(service, big).length - cap);
    expect(Buffer.from(tail.output).equals(logFrom(service, big, tail.start))).toBe(true);
  });

  it('through the thread pool, reads long output through one buffer per write lane, and still stores each session byte for byte', async () => {
    // The disk thread (the default) takes what it writes, so each read there is an array of its own (store-disk.ts).
    const { dir, service, store } = recorded({ diskThread: false });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await run(service, `seq ${i * 100_000} ${i * 100_000 + 30_000}`));
    const read = service.read.bind(service);
    const intos: Array<Uint8Array | undefined> = [];
    service.read = (id, options) => {
      if (options?.maxBytes === undefined) intos.push(options?.into);
      return read(id, options);
    };
    await store.flush();

    // Eight sessions' reads of about 200 KB each, into at most four buffers (none allocated per read).
    expect(intos).toHaveLength(8);
    expect(intos.every((into) => into !== undefined)).toBe(true);
    expect(new Set(intos).size).toBeLessThanOrEqual(4);
    const records = await loadAfresh(dir);
    for (const id of ids) {
      const record = recordOf(records, id);
      expect(record.start).toBe(0);
      expect(Buffer.from(record.output).equals(readAll(service, id))).toBe(true);
    }
  });

  it("writes a new session's record before any of its output: a kill between the two never leaves output the next host clears", async () => {
    const problems: string[] = [];
    const { dir, service, store } = recorded({ onError: (_error, context) => problems.push(context) });
    const { id } = service.create({ command: 'bash', args: ['--norc', '--noprofile', '-c', 'echo printed-$((6*7)); exec sleep 300'], source: 'user' });
    await waitForOutput(service, id, 'printed-42');
    // The record cannot be written (a directory holds its name): the store must stop before the output,
    // as a host killed between the two writes would have.
    mkdirSync(join(dir, `${id}.json`));
    await store.flush();
    expect(problems).toEqual([`the session store could not write session ${id}`]);
    expect(existsSync(join(dir, `${id}.out`))).toBe(false);

    rmSync(join(dir, `${id}.json`), { recursive: true });
    await store.flush();
    const record = recordOf(await loadAfresh(dir), id);
    expect(Buffer.from(record.output).toString()).toContain('printed-42');
  });

  it("writes a session's chunk times again on a timed turn at most every TIMES_EVERY_MS (a flood moves them every turn), and on a flush at once", async () => {
    const dir = storeDir();
    const service = createPtyService({ env: isolatedEnv() });
    // Timed turns every 10 ms: the timer's turns, not flush(), write what the session prints next.
    const store = openSessionStore({ dir, flushMs: 10 });
    let times = 0;
    const timeline = {
      revisionOf: () => 0,
      timesRevisionOf: () => times,
      persisted: () => ({ version: 1, commands: [], times: [times, 1] }),
      closedRevision: () => 0,
      persistedClosed: () => ({ version: 1, commands: [] }),
    };
    const stop = store.record(service, { agentCursorOf: () => null, timeline });
    cleanups.push(async () => {
      stop();
      store.dispose();
      await service.dispose();
    });
    const { id } = service.create({ command: 'cat', source: 'user' });
    service.write(id, 'one\n');
    await waitForOutput(service, id, 'one\r\none\r\n');
    await store.flush();
    const timesOnDisk = () => JSON.parse(readFileSync(timelinePath(dir, id), 'utf8')).times[0];
    expect(timesOnDisk()).toBe(0);
    // Only the chunk times moved: the timed turn that writes the new output and metadata leaves the timeline file.
    times = 1;
    service.write(id, 'two\n');
    await waitForOutput(service, id, 'two\r\ntwo\r\n');
    const end = service.read(id, { maxBytes: 1 }).end;
    await until(() => JSON.parse(readFileSync(metaPath(dir, id), 'utf8')).written >= end, 'a timed turn wrote the new output');
    expect(timesOnDisk()).toBe(0);
    await store.flush();
    expect(timesOnDisk()).toBe(1);
  });

  it('starts a file over when it went behind the store\'s back', async () => {
    const problems: string[] = [];
    const { dir, service, store } = recorded({ onError: (_error, context) => problems.push(context) });
    const { id } = service.create({ command: 'cat', source: 'user' });
    // Echoed, then printed by cat: both are in before the flush.
    service.write(id, 'one\r');
    await waitForOutput(service, id, 'one\r\none\r\n');
    await store.flush();
    rmSync(join(dir, `${id}.out`));
    service.write(id, 'two\r');
    await waitForOutput(service, id, 'two\r\ntwo\r\n');
    await store.flush();
    expect(problems).toEqual([`the session store could not write session ${id}`]);
    // The next turn writes the file anew, whole.
    await store.flush();
    const record = recordOf(await loadAfresh(dir), id);
    expect(record.start).toBe(0);
    expect(Buffer.from(record.output).equals(readAll(service, id))).toBe(true);
  });

  it('holds all sessions to totalBytes, taking from the oldest exited session first, and keeps every record', async () => {
    const { dir, service, store } = recorded({ sessionBytes: 10_000, totalBytes: 25_000 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await run(service, `seq ${i} 5000`));
    await store.flush();
    const records = await loadAfresh(dir);
    expect(records.map((r) => r.info.id)).toEqual(ids);
    const kept = records.map((r) => r.output.length);
    expect(kept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(25_000);
    // The newest kept its whole cap; what went, went from the oldest first.
    expect(kept[3]).toBe(10_000);
    for (let i = 1; i < kept.length; i++) expect(kept[i - 1]).toBeLessThanOrEqual(kept[i]!);
    expect(kept[0]).toBe(0);
    for (const record of records) {
      expect(Buffer.from(record.output).equals(logFrom(service, record.info.id, record.start))).toBe(true);
    }
  });

  it('removes a session\'s files with the session, and forget() removes a loaded record\'s', async () => {
    const { dir, service, store } = recorded();
    const kept = await run(service, 'echo kept');
    const removed = await run(service, 'echo removed');
    await store.flush();
    await service.remove(removed);
    await store.flush();
    expect(readdirSync(dir).sort()).toEqual([`${kept}.json`, `${kept}.out`]);

    const later = openSessionStore({ dir });
    expect((await later.load()).map((r) => r.info.id)).toEqual([kept]);
    later.forget(kept);
    await later.flush();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('loads around torn and corrupt files without throwing, and clears what cannot be read', async () => {
    const { dir, service, store } = recorded();
    const torn = await run(service, 'seq 1 1000');
    const headless = await run(service, 'echo headless');
    const whole = await run(service, 'echo whole');
    await store.flush();
    const tornEnd = readAll(service, torn).length;
    truncateSync(join(dir, `${torn}.out`), HEADER_BYTES + 100);
    truncateSync(join(dir, `${headless}.out`), 5);
    writeFileSync(join(dir, 'garbage.json'), '{"version":1,"info":{"id":"garb');
    writeFileSync(join(dir, 'garbage.out'), 'whatever');
    writeFileSync(join(dir, 'orphan.out'), 'no metadata');
    writeFileSync(join(dir, `.${whole}.json.0badc0de`), '{"half a');

    const problems: string[] = [];
    const records = await loadAfresh(dir, (_error, context) => problems.push(context));
    expect(records.map((r) => r.info.id)).toEqual([torn, headless, whole]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('garbage');

    const shortened = recordOf(records, torn);
    expect(shortened.start).toBe(0);
    expect(Buffer.from(shortened.output).equals(readAll(service, torn).subarray(0, 100))).toBe(true);
    expect(shortened.readEnd).toBe(tornEnd);
    const empty = recordOf(records, headless);
    expect(empty.output.length).toBe(0);
    expect(empty.start).toBe(readAll(service, headless).length);
    expect(Buffer.from(recordOf(records, whole).output).toString()).toContain('whole');
    expect(readdirSync(dir).sort()).toEqual([`${torn}.json`, `${torn}.out`, `${headless}.json`, `${headless}.out`, `${whole}.json`, `${whole}.out`, 'set-aside'].sort());
    // What does not parse is set aside, not removed: nothing tells whose it was.
    expect(readdirSync(join(dir, 'set-aside')).map((name) => name.replace(/\.[0-9a-f]{8}$/, '')).sort()).toEqual(['garbage.json', 'garbage.out']);
  });

  it('reads only regular files: a FIFO, a link to /dev/zero, a directory or a huge file under a record\'s name is set aside with one line each', async () => {
    const dir = storeDir();
    mkdirSync(dir, { mode: 0o700 });
    const good = plantRecord(dir, { title: 'good' }, 'kept output\r\n');
    const fifoOut = plantRecord(dir, {}, 'x');
    rmSync(join(dir, `${fifoOut.id}.out`));
    execFileSync('mkfifo', [join(dir, `${fifoOut.id}.out`)]);
    const zeroOut = plantRecord(dir, {}, 'x');
    rmSync(join(dir, `${zeroOut.id}.out`));
    symlinkSync('/dev/zero', join(dir, `${zeroOut.id}.out`));
    execFileSync('mkfifo', [join(dir, 'fifo-meta.json')]);
    symlinkSync(join(dir, `${good.id}.json`), join(dir, 'linked.json'));
    mkdirSync(join(dir, 'a-directory.json'));
    const huge = plantRecord(dir, {}, 'x');
    truncateSync(join(dir, `${huge.id}.out`), 64 * 1024 * 1024);

    const problems: Array<{ error: unknown; context: string }> = [];
    const records = await loadAfresh(dir, (error, context) => problems.push({ error, context }));
    expect(records.map((r) => r.info.id)).toEqual([good.id]);
    expect(Buffer.from(records[0]!.output).toString()).toBe('kept output\r\n');
    const lines = problems.map(({ error, context }) => `${context}: ${String(error)}`);
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line).not.toMatch(/\n/);
    for (const [id, why] of [
      [fifoOut.id, /not a regular file \(a FIFO\)/],
      [zeroOut.id, /a symbolic link/],
      ['fifo-meta', /not a regular file \(a FIFO\)/],
      ['linked', /a symbolic link/],
      ['a-directory', /not a regular file \(a directory\)/],
      [huge.id, /64\.0 MiB, more than/],
    ] as const) {
      expect(lines.filter((line) => line.includes(`record of session ${id} in set-aside/`) && why.test(line)), `${id}: ${lines.join('\n')}`).toHaveLength(1);
    }
    // Set aside, not followed: the link's target is the good record, still in place.
    expect(readdirSync(dir).sort()).toEqual([`${good.id}.json`, `${good.id}.out`, 'set-aside'].sort());
    expect(readdirSync(join(dir, 'set-aside'))).toHaveLength(9);
  });

  it('never trims or removes a restored record for this host\'s sessions or for records it cannot tell from it', async () => {
    const dir = storeDir();
    const real = plantRecord(dir, { title: 'the developer\'s tab', createdAt: 1 }, 'real scrollback\r\n');
    // Newer, larger and exited: a planted flood of records the caps would have preferred.
    const planted = Array.from({ length: 40 }, (_, i) => plantRecord(dir, { status: 'exited', exitCode: 0, exitedAt: 100 + i, createdAt: 2 + i }, 'p'.repeat(4000)));
    const realOut = readFileSync(join(dir, `${real.id}.out`));

    const { service, store } = recorded({ dir, sessionBytes: 4000, totalBytes: 20_000 });
    const removed: string[] = [];
    service.on('pty.removed', (event) => removed.push(event.id));
    for (const record of await store.load()) service.restore(record);
    const own = await run(service, 'seq 1 5000');
    await store.flush();
    expect(removed).toEqual([]);
    expect(readFileSync(join(dir, `${real.id}.out`)).equals(realOut)).toBe(true);
    const again = await loadAfresh(dir);
    expect(again.map((r) => r.info.id).sort()).toEqual([real.id, ...planted.map((p) => p.id), own].sort());
    expect(recordOf(again, real.id).info).toMatchObject({ status: 'lost', restored: true });
  });

  it('takes a restored session as it is on disk: its output file is not written again, its metadata says lost', async () => {
    const first = recorded();
    const { id } = first.service.create({ command: 'cat', source: 'agent', owner: 'agent-1' });
    first.service.write(id, 'before the kill\r');
    await waitForOutput(first.service, id, 'before the kill\r\nbefore the kill\r\n');
    await first.store.flush();
    const output = statSync(join(first.dir, `${id}.out`));

    // The next host: it loads, restores, then records, as the host does at start.
    const next = recorded({ dir: first.dir });
    const [record] = await next.store.load();
    next.service.restore(record!);
    await next.store.flush();
    expect(statSync(join(first.dir, `${id}.out`)).ino).toBe(output.ino);
    const again = recordOf(await loadAfresh(first.dir), id);
    expect(again.info).toMatchObject({ id, status: 'lost', owner: 'agent-1' });
    expect(again.start).toBe(record!.start);
    expect(Buffer.from(again.output).equals(Buffer.from(record!.output))).toBe(true);
  });

  it('refuses a directory other users can write', () => {
    const dir = storeDir();
    openSessionStore({ dir });
    chmodSync(dir, 0o777);
    expect(() => openSessionStore({ dir })).toThrow(UnsafeStateError);
    expect(existsSync(dir)).toBe(true);
  });

  it('is on unless PTYDECK_PERSIST turns it off', () => {
    expect(sessionStoreSetting({})).toBe(true);
    expect(sessionStoreSetting({ PTYDECK_PERSIST: '1' })).toBe(true);
    for (const off of ['0', 'false', 'off', 'OFF', ' no ']) expect(sessionStoreSetting({ PTYDECK_PERSIST: off })).toBe(false);
  });
});

describe("the session store's disk thread", () => {
  it('writes, reads and removes in the thread, takes whole arrays and copies views, keeps error codes, and leaves the rest to the pool once it died', async () => {
    const dir = fileTempDir('ptydeck-store-disk-');
    let worker: Worker | undefined;
    const disk = openStoreDisk(() => (worker = new Worker(STORE_DISK_URL)));
    const path = join(dir, 'output');
    const whole = new Uint8Array(Buffer.from('hello world'));
    const view = new Uint8Array(16).fill(0x21).subarray(2, 6);
    await disk.replace(path, [whole, view]);
    expect(worker).toBeDefined();
    // The whole array went to the thread; the view's buffer (the store's scratch, say) stays, copied.
    expect(whole.length).toBe(0);
    expect(view.length).toBe(4);
    expect(readFileSync(path, 'latin1')).toBe('hello world!!!!');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await disk.writeAt(path, 6, new Uint8Array(Buffer.from('there')));
    expect(Buffer.from(await disk.readAt(path, 6, 100)).toString()).toBe('there!!!!');
    await expect(disk.writeAt(join(dir, 'gone'), 0, new Uint8Array(1))).rejects.toMatchObject({ code: 'ENOENT' });
    await disk.remove([path, join(dir, 'gone')]);
    expect(existsSync(path)).toBe(false);

    const exited = new Promise((resolve) => worker!.once('exit', resolve));
    void worker!.terminate();
    await exited;
    await disk.replace(path, 'after the thread');
    expect(readFileSync(path, 'utf8')).toBe('after the thread');
    disk.close();
  });
});
