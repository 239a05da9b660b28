import { closeSync, openSync, readlinkSync } from 'node:fs';
import { Socket } from 'node:net';
import * as nodePty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv } from '../testing/isolated-env.js';
import { MasterReading } from './master-reading.js';
import { checkNodePtyInternals, nodePtyMaster, onBytes, type LoopReading } from './node-pty-adapter.js';

/**
 * The private parts of node-pty and Node that pty-process.ts and
 * master-reading.ts rely on are all where the adapter looks on the pinned
 * node-pty: a bump that moves one fails here, not as lost output in use.
 */
const spawned: nodePty.IPty[] = [];
const opened: number[] = [];

afterEach(() => {
  for (const pty of spawned.splice(0)) pty.kill('SIGKILL');
  for (const fd of opened.splice(0)) closeSync(fd);
});

/** A real terminal running `script`, spawned as pty-process.ts spawns one. */
function spawn(script: string): nodePty.IPty {
  const pty = nodePty.spawn('/bin/sh', ['-c', script], { cwd: '/', env: isolatedEnv() as Record<string, string>, cols: 80, rows: 24, encoding: null });
  spawned.push(pty);
  return pty;
}

function firstOutput(pty: nodePty.IPty): Promise<Buffer> {
  return new Promise((resolve) => {
    const listener = onBytes(pty, (chunk) => {
      listener.dispose();
      resolve(chunk);
    });
  });
}

describe('node-pty internals, on the pinned node-pty', () => {
  it('are all found on a real terminal, with nothing logged', () => {
    const lines: string[] = [];
    const internals = checkNodePtyInternals(spawn('exit 0'), (line) => lines.push(line));
    expect(internals).toEqual({ fd: '_fd', socket: true, instantStop: true, missing: [] });
    expect(lines).toEqual([]);
  });

  it("give the terminal's master, whose reading stops and starts through the flag Node itself keeps", async () => {
    const pty = spawn('echo ready; read line; echo "got $line"');
    const master = nodePtyMaster(pty, checkNodePtyInternals(pty, () => {}));
    if (process.platform === 'linux') expect(readlinkSync(`/proc/self/fd/${master.fd}`)).toBe('/dev/ptmx');
    expect(Buffer.from(await firstOutput(pty)).toString()).toContain('ready');
    const handle = (pty as unknown as { _socket: { _handle: { reading?: boolean } } })._socket._handle;
    // Node set it when node-pty's socket started reading: the adapter's stop() and start() read the same flag.
    expect(handle.reading).toBe(true);
    const loop = master.loopReading(() => true);
    expect(loop.instant).toBe(true);
    loop.stop();
    expect(handle.reading).toBe(false);
    loop.start();
    expect(handle.reading).toBe(true);
    const got = firstOutput(pty);
    pty.write('x\r');
    expect(Buffer.from(await got).toString()).toContain('x');
  });

  it("route every close of the master through the hook before node-pty's exit", async () => {
    const pty = spawn('printf done');
    const master = nodePtyMaster(pty, checkNodePtyInternals(pty, () => {}));
    const events: string[] = [];
    master.interceptClose((finish) => {
      events.push('close');
      finish();
    });
    await new Promise<void>((resolve) =>
      pty.onExit(() => {
        events.push('exit');
        resolve();
      }),
    );
    expect(events).toEqual(['close', 'exit']);
    expect(master.destroyed).toBe(true);
  });
});

describe('node-pty internals that moved', () => {
  it('fall back to the fd getter and to pause()/resume(), each logged once, with what is lost', () => {
    const calls: string[] = [];
    const fd = openSync('/dev/null', 'r');
    opened.push(fd);
    // A terminal whose fd is only behind the getter, on a socket with no libuv handle.
    const fake = {
      get fd() {
        return fd;
      },
      _socket: new Socket(),
      pause: () => calls.push('pause'),
      resume: () => calls.push('resume'),
    } as unknown as nodePty.IPty;
    const lines: string[] = [];
    const internals = checkNodePtyInternals(fake, (line) => lines.push(line));
    expect(internals).toMatchObject({ fd: 'fd getter', socket: true, instantStop: false });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^node-pty \S+: _fd not found; falling back to the fd getter: nothing is lost$/);
    expect(lines[1]).toMatch(/^Node v\S+: net\.Socket _handle\.readStart\/readStop not found; falling back to node-pty's pause\(\)\/resume\(\): no read thread/);
    const master = nodePtyMaster(fake, internals);
    expect(master.fd).toBe(fd);
    const loop = master.loopReading(() => true);
    expect(loop.instant).toBe(false);
    loop.stop();
    loop.start();
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('without the socket or the fd, open no terminal and say why', () => {
    const lines: string[] = [];
    const internals = checkNodePtyInternals({} as nodePty.IPty, (line) => lines.push(line));
    expect(internals).toEqual({ fd: undefined, socket: false, instantStop: false, missing: lines });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/_fd and the fd getter not found; no public API gives the master's fd: no terminal can be opened$/);
    expect(lines[1]).toMatch(/_socket \(a net\.Socket\) not found; no public API replaces it: no terminal can be opened/);
    expect(() => nodePtyMaster({} as nodePty.IPty, internals)).toThrow(/internals changed .*_socket/);
  });

  it('keep a flood on the event loop when the loop cannot stop at once', () => {
    let threadsAsked = 0;
    const paused: LoopReading = { instant: false, stop: () => {}, start: () => {} };
    const reading = new MasterReading(
      { fd: -1, destroyed: false, close: () => {}, loopReading: () => paused },
      () => {},
      { afterBytes: 1024, thread: () => (threadsAsked++, undefined) },
    );
    for (let i = 0; i < 16; i++) reading.fromLoop(Buffer.alloc(4096));
    expect(threadsAsked).toBe(0);
  });

  it('keep the loop watch ticking for fuller reads only: an echo’s pause its next read judges', () => {
    const kept: number[] = [];
    const loop = { freeAt: () => performance.now(), keepUntil: (until: number) => void kept.push(until), dispose: () => {} };
    const idle: LoopReading = { instant: true, stop: () => {}, start: () => {} };
    const reading = new MasterReading({ fd: -1, destroyed: false, close: () => {}, loopReading: () => idle }, () => {}, { afterBytes: 1024 * 1024, thread: () => undefined, loop });
    for (let i = 0; i < 300; i++) reading.fromLoop(Buffer.from('x'));
    expect(kept).toHaveLength(0);
    reading.fromLoop(Buffer.alloc(4096));
    expect(kept).toHaveLength(1);
  });
});
