import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { AcpTerminals, TERMINAL_LIMIT_CODE } from './acp-terminals.js';
import { fileTempDir } from '../testing/isolated-env.js';
import { sandboxedHome } from '../testing/sandboxed-home.js';
import { sandboxAvailability } from '../sandbox/availability.js';
import { removeEmptyFile } from '../sandbox/empty-file.js';
import { LISTED_PER_TURN, listedEntries } from '../sandbox/listings.js';
import { turnMeter } from '../testing/loop-turns.js';

let dir: string;
let service: PtyService;
const made: AcpTerminals[] = [];

beforeAll(() => {
  dir = fileTempDir('ptydeck-acp-terminals-');
  const home = join(dir, 'home');
  mkdirSync(home);
  service = createPtyService({ env: { ...process.env, HOME: home, HISTFILE: join(home, '.history') }, killGraceMs: 1000 });
});
afterEach(async () => {
  for (const terminals of made.splice(0)) {
    await terminals.releaseAll();
    terminals.dispose();
  }
});
afterAll(async () => {
  await service.dispose();
  removeEmptyFile();
  rmSync(dir, { recursive: true, force: true });
});

function terminals(options: ConstructorParameters<typeof AcpTerminals>[1] = {}): AcpTerminals {
  const created = new AcpTerminals(service, { ownerName: 'fake agent', ...options });
  made.push(created);
  return created;
}

/** The JSON-RPC error a call threw (sync or async), to check its code and message. */
async function rpcError(call: () => unknown): Promise<RequestError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    return error as RequestError;
  }
  throw new Error('expected a JSON-RPC error');
}

const sleeper = (sessionId: string) => ({ sessionId, command: 'sleep', args: ['600'] });

describe('AcpTerminals', () => {
  it('runs a command line in an agent PTY session owned by the ACP session, with its output and exit status', async () => {
    const t = terminals();
    const { terminalId } = await t.create({ sessionId: 's1', command: "bash -c 'echo hi; exit 3'" });
    expect(service.get(terminalId)).toMatchObject({ source: 'agent', owner: 's1', ownerName: 'fake agent' });
    expect(await t.waitForExit({ sessionId: 's1', terminalId })).toEqual({ exitCode: 3, signal: null });
    const output = t.output({ sessionId: 's1', terminalId });
    expect(output.output.trim()).toBe('hi');
    expect(output).toMatchObject({ truncated: false, exitStatus: { exitCode: 3, signal: null } });
  });

  it('passes command, args, env and cwd as given, and defaults cwd to the session’s', async () => {
    const work = mkdtempSync(join(dir, 'work-'));
    const t = terminals({ cwdOf: () => work });
    const script = 'printf "%s:%s" "$GREETING" "$PWD"';
    const a = await t.create({ sessionId: 's1', command: 'bash', args: ['-c', script], env: [{ name: 'GREETING', value: 'hello there' }], cwd: dir });
    await t.waitForExit({ sessionId: 's1', terminalId: a.terminalId });
    expect(t.output({ sessionId: 's1', terminalId: a.terminalId }).output).toBe(`hello there:${dir}`);
    const b = await t.create({ sessionId: 's1', command: 'bash', args: ['-c', 'printf %s "$PWD"'] });
    await t.waitForExit({ sessionId: 's1', terminalId: b.terminalId });
    expect(t.output({ sessionId: 's1', terminalId: b.terminalId }).output).toBe(work);
  });

  it('truncates from the start on a character boundary and caps outputByteLimit', async () => {
    const t = terminals({ maxOutputBytes: 64 });
    // 'é' is two bytes: an odd limit would start mid-character without the boundary rule.
    const odd = await t.create({ sessionId: 's1', command: 'bash', args: ['-c', "for i in $(seq 500); do printf 'é'; done"], outputByteLimit: 41 });
    await t.waitForExit({ sessionId: 's1', terminalId: odd.terminalId });
    expect(t.output({ sessionId: 's1', terminalId: odd.terminalId })).toMatchObject({ output: 'é'.repeat(20), truncated: true });
    const capped = await t.create({ sessionId: 's1', command: 'bash', args: ['-c', 'seq -s , 1000 | tr -d "\\n"'], outputByteLimit: 1_000_000 });
    await t.waitForExit({ sessionId: 's1', terminalId: capped.terminalId });
    const output = t.output({ sessionId: 's1', terminalId: capped.terminalId });
    expect(output.truncated).toBe(true);
    expect(Buffer.byteLength(output.output)).toBe(64);
    expect(output.output.endsWith('998,999,1000')).toBe(true);
  });

  it("keeps its own copy of a flood's output: the service lends its chunks, and reuses them once its log trims them", async () => {
    const t = terminals({ maxOutputBytes: 16 * 1024 * 1024 });
    // About 21 MB: past the session log's 4 MiB, so the service hands its oldest chunks back to be
    // filled again while this terminal still keeps 8 MiB.
    const { terminalId } = await t.create({ sessionId: 's1', command: 'seq', args: ['1', '3000000'], outputByteLimit: 8 * 1024 * 1024 });
    await t.waitForExit({ sessionId: 's1', terminalId });
    const { output, truncated } = t.output({ sessionId: 's1', terminalId });
    expect(truncated).toBe(true);
    const lines = output.split(/\r?\n/);
    lines.shift(); // cut by the truncation
    expect(lines.pop()).toBe('');
    const first = Number(lines[0]);
    expect(lines.length).toBeGreaterThan(800_000);
    expect(lines.findIndex((line, i) => line !== String(first + i))).toBe(-1);
    expect(lines.at(-1)).toBe('3000000');
  });

  it('kill ends the command and leaves its output readable; release frees the id', async () => {
    const t = terminals();
    const { terminalId } = await t.create({ sessionId: 's1', command: 'bash', args: ['-c', 'echo started; sleep 600'] });
    await waitForOutput(service, terminalId, 'started');
    await t.kill({ sessionId: 's1', terminalId });
    const afterKill = t.output({ sessionId: 's1', terminalId });
    expect(afterKill.output).toContain('started');
    expect(afterKill.exitStatus).toEqual({ exitCode: null, signal: 'SIGHUP' });
    expect(await t.waitForExit({ sessionId: 's1', terminalId })).toEqual({ exitCode: null, signal: 'SIGHUP' });

    await t.release({ sessionId: 's1', terminalId });
    const gone = await rpcError(() => t.output({ sessionId: 's1', terminalId }));
    expect(gone.code).toBe(-32002);
  });

  it('release ends a running command', async () => {
    const t = terminals();
    const { terminalId } = await t.create(sleeper('s1'));
    await t.release({ sessionId: 's1', terminalId });
    expect(service.get(terminalId)?.status).toBe('exited');
    expect((await rpcError(() => t.output({ sessionId: 's1', terminalId }))).code).toBe(-32002);
  });

  it('answers an unknown id, or another session’s, with a clear not-found error', async () => {
    const t = terminals();
    const { terminalId } = await t.create(sleeper('s1'));
    for (const call of [() => t.output({ sessionId: 's2', terminalId }), () => t.kill({ sessionId: 's1', terminalId: 'nope' })]) {
      const error = await rpcError(call);
      expect(error.code).toBe(-32002);
      expect(error.message).toMatch(/^Terminal not found: no terminal '.+' in session 's[12]'/);
    }
    expect(service.get(terminalId)?.status).toBe('running');
  });

  it('accepts a command line longer than a tab title may be, and titles the tab with its start', async () => {
    const t = terminals();
    const word = 'x'.repeat(5000);
    const { terminalId } = await t.create({ sessionId: 's1', command: `bash -c 'printf %s ${word} | wc -c'` });
    await t.waitForExit({ sessionId: 's1', terminalId });
    expect(t.output({ sessionId: 's1', terminalId }).output.trim()).toBe('5000');
    const title = service.get(terminalId)?.title ?? '';
    expect(title.startsWith("bash -c 'printf %s xxx")).toBe(true);
    expect(title.length).toBeLessThanOrEqual(200);
  });

  it.runIf(sandboxAvailability('workspace').ok)("lists a sandboxed terminal's crowded working directory a slice per turn of the loop, its socket still hidden", async () => {
    // As terminal_create does (sandboxed-terminal.test.ts): the policy's listings are made before the create, off the loop.
    const home = join(dir, 'sandboxed-home');
    mkdirSync(home);
    const { workspace, sandbox } = sandboxedHome(home);
    for (let i = 0; i < LISTED_PER_TURN * 4; i++) writeFileSync(join(workspace, `f${i}`), '');
    const socket = createServer();
    await new Promise<void>((resolve) => socket.listen(join(workspace, 'sock'), resolve));
    const meter = turnMeter(() => listedEntries.count);
    let most = 0;
    const t = terminals({ sandbox });
    const { terminalId } = await t.create({ sessionId: 's1', command: 'sh', args: ['-c', 'test -S sock && echo reachable || echo hidden'], cwd: workspace }).finally(() => {
      most = meter.stop().mostPerTurn; // with what this turn listed, up to the create's end
    });
    socket.close();
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(LISTED_PER_TURN);
    expect(await t.waitForExit({ sessionId: 's1', terminalId })).toEqual({ exitCode: 0, signal: null });
    expect(t.output({ sessionId: 's1', terminalId }).output.trim()).toBe('hidden');
  });

  it('rejects a relative cwd', async () => {
    const error = await rpcError(() => terminals().create({ sessionId: 's1', command: 'true', cwd: 'relative/dir' }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('cwd must be an absolute path');
  });

  it('stops waiting for exit when the request is cancelled', async () => {
    const t = terminals();
    const { terminalId } = await t.create(sleeper('s1'));
    const abort = new AbortController();
    const waiting = t.waitForExit({ sessionId: 's1', terminalId }, abort.signal);
    abort.abort();
    expect((await rpcError(() => waiting)).code).toBe(-32800);
  });

  it('enforces the live and unreleased limits per ACP session', async () => {
    const t = terminals({ maxLive: 2, maxUnreleased: 3 });
    const first = await t.create(sleeper('s1'));
    await t.create(sleeper('s1'));
    const live = await rpcError(() => t.create(sleeper('s1')));
    expect(live.code).toBe(TERMINAL_LIMIT_CODE);
    expect(live.message).toContain('2 running terminals per session');
    // Another session has its own allowance.
    await t.create(sleeper('s2'));

    await t.kill({ sessionId: 's1', terminalId: first.terminalId });
    await t.create(sleeper('s1'));
    const unreleased = await rpcError(() => t.create(sleeper('s1')));
    expect(unreleased.message).toContain('3 unreleased terminals per session');

    const ids = [...service.list()].filter((info) => info.owner === 's1' && info.status === 'running').map((info) => info.id);
    await t.release({ sessionId: 's1', terminalId: first.terminalId });
    for (const terminalId of ids) await t.release({ sessionId: 's1', terminalId });
    // Released, they no longer count: the session may create again.
    await t.create(sleeper('s1'));
  });
});
