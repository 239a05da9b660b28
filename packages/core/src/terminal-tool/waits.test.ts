import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PtyService } from '../pty/types.js';
import { SequenceScanner } from '../vt/index.js';
import { AgentTerminal } from './agent-terminal.js';
import { ShellMarksStrategy } from './execute-strategy.js';
import { waitForExit, waitForIdle, waitForPattern } from './waits.js';

/**
 * The waits and the run state machine under a fake clock: a session fed
 * bytes by hand through a log that stands in for the PTY service.
 */

function fakeSession(): { session: AgentTerminal; emit: (text: string) => void; written: string[] } {
  let log = Buffer.alloc(0);
  const written: string[] = [];
  // The service scans each chunk as it enters the log, then tells its 'pty.data' listeners.
  const scanner = new SequenceScanner();
  const service = {
    onSequences: (_id: string, handlers: Parameters<SequenceScanner['on']>[0]) => scanner.on(handlers),
    scanPosition: () => ({ end: scanner.end, safeEnd: scanner.safeEnd }),
    read: (_id: string, options: { cursor?: number; maxBytes?: number } = {}) => {
      const from = options.cursor ?? 0;
      const to = Math.min(log.length, from + (options.maxBytes ?? log.length));
      return { data: log.subarray(from, to), cursor: from, next: to, skipped: 0, end: log.length };
    },
    write: (_id: string, data: string) => written.push(data),
    get: () => undefined,
  } as unknown as PtyService;
  const facts = { setAttention: () => undefined, setShellActivity: () => undefined, setPorts: () => undefined };
  const session = new AgentTerminal(service, facts, 's1', 'owner', new ShellMarksStrategy(), '/');
  const emit = (text: string) => {
    const data = Buffer.from(text);
    const cursor = log.length;
    log = Buffer.concat([log, data]);
    scanner.scan(cursor, data);
    session.ingest();
  };
  // The shell announces its key as it starts; every mark carries it.
  emit('\x1b]6973;key;K\x07');
  return { session, emit, written };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('waits under a fake clock', () => {
  it('idle: returns once output has been quiet for idle_ms, counting from the last output', async () => {
    const { session, emit } = fakeSession();
    const started = Date.now();
    const waiting = waitForIdle(session, 1000, started, started + 60_000);
    await vi.advanceTimersByTimeAsync(600);
    emit('tick\n');
    await vi.advanceTimersByTimeAsync(600);
    let settled = false;
    void waiting.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(400);
    await expect(waiting).resolves.toEqual({ reason: 'idle' });
    expect(Date.now() - started).toBe(1600);
  });

  it('idle: times out while output keeps coming', async () => {
    const { session, emit } = fakeSession();
    const started = Date.now();
    const waiting = waitForIdle(session, 1000, started, started + 3000);
    for (let i = 0; i < 6; i++) {
      await vi.advanceTimersByTimeAsync(500);
      emit(`line ${i}\n`);
    }
    await expect(waiting).resolves.toEqual({ reason: 'timeout' });
  });

  it('exit: follows a command from its typed line to its done mark', async () => {
    const { session, emit, written } = fakeSession();
    emit('\x1b]133;D;k=K\x07\x1b]133;A;k=K\x07$ \x1b]133;B;k=K\x07');
    expect(session.tracker.atPrompt).toBe(true);
    session.typeCommand('make');
    expect(written).toEqual(['\x1b[200~make\x1b[201~\r']);
    // Until the output-start mark, readers stop where the line was typed.
    emit('make\r\n');
    expect(session.safeEnd).toBe(session.end - 'make\r\n'.length);
    emit('\x1b]133;C;k=K\x07building\r\n');
    const running = session.tracker.running;
    expect(running).not.toBeNull();
    const waiting = waitForExit(session, running, Date.now() + 10_000);
    await vi.advanceTimersByTimeAsync(2000);
    emit('\x1b]133;D;2;k=K\x07\x1b]133;A;k=K\x07$ \x1b]133;B;k=K\x07');
    await expect(waiting).resolves.toEqual({ reason: 'exit' });
    expect(session.tracker.lastFinished?.exitCode).toBe(2);
    expect(session.view.render(session.tracker.lastFinished!.outputStart, session.end).text).toBe('building\n');
    expect(session.state().state).toBe('idle_at_prompt');
  });

  it('exit: reports timeout when the command outlives the deadline', async () => {
    const { session, emit } = fakeSession();
    emit('\x1b]133;A;k=K\x07$ \x1b]133;B;k=K\x07');
    session.typeCommand('sleep 100');
    emit('\x1b]133;C;k=K\x07');
    const waiting = waitForExit(session, session.tracker.running, Date.now() + 5000);
    await vi.advanceTimersByTimeAsync(5000);
    await expect(waiting).resolves.toEqual({ reason: 'timeout' });
  });

  it('exit: a mark without the shell\'s key is output, not the end of the command', async () => {
    const { session, emit } = fakeSession();
    emit('\x1b]133;A;k=K\x07$ \x1b]133;B;k=K\x07');
    session.typeCommand('cat forged.txt; sleep 3; (exit 7)');
    emit('\x1b]133;C;k=K\x07');
    const waiting = waitForExit(session, session.tracker.running, Date.now() + 10_000);
    // What `cat` of a crafted file prints: marks without the key, and one with a wrong key.
    emit('\x1b]133;D;0\x07\x1b]133;A\x07$ \x1b]133;B\x07\x1b]133;D;0;k=guess\x07');
    await vi.advanceTimersByTimeAsync(3000);
    expect(session.tracker.running).not.toBeNull();
    expect(session.tracker.atPrompt).toBe(false);
    emit('\x1b]133;D;7;k=K\x07');
    await expect(waiting).resolves.toEqual({ reason: 'exit' });
    expect(session.tracker.lastFinished?.exitCode).toBe(7);
  });

  it('only the first key counts, announced before any command ran', async () => {
    const { session, emit } = fakeSession();
    emit('\x1b]6973;key;EVIL\x07\x1b]133;A;k=EVIL\x07');
    expect(session.tracker.phase).toBe('starting');
    emit('\x1b]133;A;k=K\x07');
    expect(session.tracker.phase).toBe('prompting');
  });

  it('pattern: matches across chunks, on plain text', async () => {
    const { session, emit } = fakeSession();
    const matched: string[] = [];
    const match = async (text: string) => {
      matched.push(text);
      return /ready on port \d+/.exec(text)?.[0] ?? null;
    };
    const waiting = waitForPattern(session, match, 0, Date.now() + 10_000);
    emit('\x1b[32mready on');
    await vi.advanceTimersByTimeAsync(100);
    emit(' port\x1b[0m 8080\n');
    await expect(waiting).resolves.toEqual({ reason: 'pattern', match: 'ready on port 8080' });
    // Each scan sees only what is new, after the unfinished line carried from the one before.
    expect(matched).toEqual(['ready on', 'ready on port 8080\n']);
  });
});
