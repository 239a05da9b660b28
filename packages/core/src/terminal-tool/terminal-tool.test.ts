import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { TerminalToolError } from './errors.js';
import { createTerminalTool, type TerminalOwner, type TerminalTool } from './terminal-tool.js';
import { fileTempDir } from '../testing/isolated-env.js';

/** The tool's own API with real PTYs: fallbacks, limits and retention the MCP tests do not reach. */

let service: PtyService;
let dir: string;

beforeAll(() => {
  dir = fileTempDir('ptydeck-tool-test-');
  const home = join(dir, 'home');
  mkdirSync(home);
  service = createPtyService({ env: { ...process.env, HOME: home } });
});

afterAll(async () => {
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves once the service has removed `count` sessions. */
function removals(count: number): Promise<string[]> {
  return new Promise((resolve) => {
    const seen: string[] = [];
    const off = service.on('pty.removed', (event) => {
      seen.push(event.id);
      if (seen.length === count) {
        off();
        resolve(seen);
      }
    });
  });
}

async function rejection(promise: Promise<unknown>): Promise<TerminalToolError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TerminalToolError);
  return error as TerminalToolError;
}

describe('terminal tool', () => {
  it('runs commands in a shell without integration through nonce marks', async () => {
    const tool = createTerminalTool(service, { shell: '/bin/sh' });
    const owner: TerminalOwner = { id: 'sh-owner' };
    try {
      const created = await tool.create(owner, {});
      const answer = await tool.run(owner, { id: created.id, command: 'echo $((6*7))' });
      expect(answer).toMatchObject({ outcome: 'completed', exit_code: 0, output: '42\n' });
      expect(await tool.run(owner, { id: created.id, command: 'false' })).toMatchObject({ exit_code: 1, output: '' });
      await tool.run(owner, { id: created.id, command: 'cd /tmp' });
      expect(await tool.run(owner, { id: created.id, command: "pwd; echo 'it''s'\necho two" })).toMatchObject({
        exit_code: 0,
        output: '/tmp\nits\ntwo\n',
      });
      // The mark never reaches a reader, and the shell is back at its prompt.
      const all = await tool.read(owner, { id: created.id, mode: 'all' });
      expect(all.output).not.toMatch(/6973|\x1b/);
      expect(all.state).toBe('idle_at_prompt');
    } finally {
      await tool.closeOwner(owner.id);
      tool.dispose();
    }
  });

  it('types a run into a slowly starting shell once its prompt shows, without a raw echo', async () => {
    // Startup files that block until the test opens a gate: a shell slower than any timeout.
    const home = join(dir, 'slow-home');
    mkdirSync(home);
    const gate = join(home, 'gate');
    execFileSync('mkfifo', [gate]);
    writeFileSync(join(home, '.bash_profile'), 'read _ < "$HOME/gate"\n');
    const slow = createPtyService({ env: { ...process.env, HOME: home } });
    const tool = createTerminalTool(slow, { shellStartMs: 100 });
    const owner = { id: 'slow' };
    try {
      const run = await tool.run(owner, { command: 'echo queued', timeout_ms: 50 });
      expect(run).toMatchObject({ outcome: 'running', output: '' });
      expect((await rejection(tool.run(owner, { id: run.id, command: 'echo second', timeout_ms: 0 }))).code).toBe('busy');
      writeFileSync(gate, 'open\n');
      const waited = await tool.wait(owner, { id: run.id, until: 'exit', timeout_ms: 20_000 });
      expect(waited).toMatchObject({ reason: 'exit', scope: 'command', exit_code: 0, output: 'queued\n', state: 'idle_at_prompt' });
    } finally {
      tool.dispose();
      await slow.dispose();
    }
  });

  it('waits for the exit of a line sent with terminal_send that the shell has not read yet', async () => {
    const tool = createTerminalTool(service);
    const owner = { id: 'unread-line' };
    try {
      const created = await tool.create(owner, {});
      expect(await tool.run(owner, { id: created.id, command: 'true' })).toMatchObject({ outcome: 'completed', exit_code: 0 });
      // Bash stopped: the line sits unread in the terminal, the last prompt still on screen, exactly
      // as when a wait is asked before a loaded machine schedules the shell.
      process.kill(created.pid!, 'SIGSTOP');
      let waiting: ReturnType<TerminalTool['wait']>;
      try {
        await tool.send(owner, { id: created.id, text: 'exit 3\r', wait_ms: 0 });
        // A wait that ends before the shell reads the line says so, rather than answer with `true`.
        expect(await tool.wait(owner, { id: created.id, until: 'exit', timeout_ms: 50 })).toMatchObject({ reason: 'timeout', scope: 'process' });
        waiting = tool.wait(owner, { id: created.id, until: 'exit', timeout_ms: 20_000 });
      } finally {
        process.kill(created.pid!, 'SIGCONT');
      }
      const waited = await waiting;
      // Not the earlier `true` at a prompt the shell was about to leave.
      expect(waited).toMatchObject({ reason: 'exit', state: 'exited', process_exit_code: 3 });
      expect(waited).not.toHaveProperty('exit_code');
    } finally {
      tool.dispose();
    }
  });

  it('caps live terminals per owner with an error naming the limit', async () => {
    const tool = createTerminalTool(service, { maxLivePerOwner: 2 });
    const owner = { id: 'capped' };
    try {
      await tool.create(owner, { command: 'cat' });
      await tool.create(owner, { command: 'cat' });
      const error = await rejection(tool.create(owner, { command: 'cat' }));
      expect(error.code).toBe('limit');
      expect(error.message).toMatch(/2 running terminals per client.*terminal_close/);
      // Another owner is not affected.
      await tool.create({ id: 'other' }, { command: 'cat' });
      expect((await tool.list({ id: 'other' })).terminals).toHaveLength(1);
    } finally {
      await tool.closeOwner('capped');
      await tool.closeOwner('other');
      tool.dispose();
    }
  });

  it('holds the cap when the creations arrive together and wait for their turns to spawn', async () => {
    const tool = createTerminalTool(service, { maxLivePerOwner: 3 });
    const owner = { id: 'together' };
    try {
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => tool.create(owner, { command: 'cat' })));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refused.map((r) => (r.reason as TerminalToolError).code)).toEqual(['limit', 'limit', 'limit']);
      expect((await tool.list(owner)).terminals).toHaveLength(3);
      expect(service.list().filter((info) => info.owner === 'together')).toHaveLength(3);
    } finally {
      await tool.closeOwner('together');
      tool.dispose();
    }
  });

  it('keeps the most recent exited terminals per owner and evicts the oldest', async () => {
    const tool = createTerminalTool(service, { maxExitedPerOwner: 2 });
    const owner = { id: 'evictor' };
    try {
      const evicted = removals(1);
      const ids: string[] = [];
      for (const word of ['one', 'two', 'three']) {
        const created = await tool.create(owner, { command: 'echo', args: [word] });
        ids.push(created.id);
        await tool.wait(owner, { id: created.id, until: 'exit' });
      }
      expect(await evicted).toEqual([ids[0]]);
      expect((await tool.list(owner)).terminals.map((t) => t.id)).toEqual(ids.slice(1));
      // An evicted id reads like any unknown id.
      expect((await rejection(tool.read(owner, { id: ids[0]! }))).code).toBe('no_such_terminal');
      // Survivors stay readable after exit, from each caller's own cursor.
      expect((await tool.read(owner, { id: ids[2]!, mode: 'new' })).output).toBe('');
      expect((await tool.read(owner, { id: ids[2]!, mode: 'all' })).output).toBe('three\n');
    } finally {
      await tool.closeOwner(owner.id);
      tool.dispose();
    }
  });

  it('reports the terminal capability of the session', async () => {
    const tool = createTerminalTool(service);
    const owner = { id: 'cap' };
    try {
      const created = await tool.create(owner, { command: 'cat', cols: 100, rows: 30, env: { NO_COLOR: '1' } });
      expect(created.terminal).toMatchObject({ kind: 'tty', color: 'none', columns: 100, rows: 30 });
    } finally {
      await tool.closeOwner(owner.id);
      tool.dispose();
    }
  });

  it('closeOwner ends and removes every session of that owner only', async () => {
    const tool = createTerminalTool(service);
    try {
      const mine = await tool.create({ id: 'leaving' }, { command: 'cat' });
      const theirs = await tool.create({ id: 'staying' }, { command: 'cat' });
      await tool.closeOwner('leaving');
      expect(service.get(mine.id)).toBeUndefined();
      expect(service.get(theirs.id)?.status).toBe('running');
    } finally {
      await tool.closeOwner('staying');
      tool.dispose();
    }
  });
});
