import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { SessionFacts } from '../facts/index.js';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { createTerminalTool, type TerminalOwner, type TerminalTool } from '../terminal-tool/terminal-tool.js';
import { sessionProcesses } from '../pty/session-processes.js';
import { isAlive } from '../testing/host-sandbox.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { sandboxedHome } from '../testing/sandboxed-home.js';
import { until } from '../testing/poll-until.js';
import { waitForOutput } from '../testing/session-waits.js';
import { sandboxAvailability } from './availability.js';
import { removeEmptyFile } from './empty-file.js';
import { LISTED_PER_TURN, listedEntries } from './listings.js';
import { turnMeter } from '../testing/loop-turns.js';

/**
 * Issue 35: a sandboxed agent shell stays a terminal (its own PTY: prompts,
 * job control, Ctrl-C, ports and processes read from /proc), a typical
 * agent's work succeeds inside it, and what it types with TIOCSTI reaches only
 * its own terminal. Real bubblewrap, real bash, the real terminal tool.
 */
const available = sandboxAvailability('workspace').ok;
const owner: TerminalOwner = { id: 'sandboxed-terminal', name: 'sandboxed-agent' };

let env: Record<string, string | undefined>;
let home: string;
let workspace: string;
let service: PtyService;
let tool: TerminalTool;
let facts: SessionFacts;

beforeAll(() => {
  // Without the npm_* variables `npx vitest` sets (npm_config_cache names the developer's cache, outside the sandbox).
  env = { ...Object.fromEntries(Object.entries(isolatedEnv()).filter(([name]) => !/^npm_/i.test(name))), npm_config_update_notifier: 'false' };
  home = env.HOME!;
  const laidOut = sandboxedHome(home);
  workspace = laidOut.workspace;
  const sandbox = laidOut.sandbox;
  service = createPtyService({ env });
  facts = new SessionFacts(service);
  tool = createTerminalTool(service, { sandbox, facts });
});

afterAll(async () => {
  await tool?.closeOwner(owner.id);
  tool?.dispose();
  await service?.dispose();
  // The host removes the empty file sandboxes lay over hidden files when it stops (start-host.ts); there is no host here.
  removeEmptyFile();
  if (home) rmSync(home, { recursive: true, force: true });
});

async function sandboxedShell(): Promise<string> {
  const made = await tool.create(owner, { cwd: workspace });
  expect(made.sandbox?.profile).toBe('workspace');
  return made.id;
}

describe.skipIf(!available)('a sandboxed shell stays a terminal', () => {
  it('asks for input (needs you, from /proc), is interrupted by Ctrl-C, and keeps job control (Ctrl-Z, fg)', async () => {
    const id = await sandboxedShell();
    const asked = await tool.run(owner, { id, command: 'read -p "Name? " n; echo "got=$n"' });
    expect(asked).toMatchObject({ outcome: 'waiting_for_input', prompt_text: 'Name? ' });
    expect(facts.get(id)?.attention).toMatchObject({ prompt: 'Name? ' });
    await tool.send(owner, { id, text: 'ada', keys: ['Enter'] });
    expect(await tool.wait(owner, { id, until: 'exit', timeout_ms: 20_000 })).toMatchObject({ exit_code: 0 });

    expect(await tool.run(owner, { id, command: 'sleep 300', timeout_ms: 300 })).toMatchObject({ outcome: 'running' });
    const stopped = await tool.send(owner, { id, keys: ['Ctrl-Z'] });
    expect(stopped.output).toMatch(/Stopped\s+sleep 300/);
    expect((await tool.run(owner, { id, command: 'jobs' })).output).toMatch(/\[1\]\+\s+Stopped\s+sleep 300/);
    await tool.send(owner, { id, text: 'fg', keys: ['Enter'] });
    const pid = service.get(id)!.pid;
    await until(() => foregroundOf(pid)?.comm === 'sleep' && foregroundOf(pid)?.state !== 'T', 'sleep runs again in the foreground');
    await tool.send(owner, { id, keys: ['Ctrl-C'] });
    expect(await tool.wait(owner, { id, until: 'exit', timeout_ms: 20_000 })).toMatchObject({ exit_code: 130 });
    expect(await tool.run(owner, { id, command: 'echo alive; (exit 7)' })).toMatchObject({ outcome: 'completed', exit_code: 7, output: 'alive\n' });
    await tool.close(owner, { id });
  });

  it("lists a server's port, its own processes but not the sandbox's launcher, and ends them all when closed", async () => {
    const id = await sandboxedShell();
    const server = await tool.run(owner, { id, command: 'python3 -m http.server 0 --bind 127.0.0.1 >/dev/null 2>&1 & echo $!' });
    const serverPid = lastNumber(server.output);
    const opened = await tool.wait(owner, { id, until: 'port', timeout_ms: 20_000 });
    expect(opened.reason).toBe('port');
    const port = opened.ports_opened![0]!.port;
    // The sandbox shares the host's network: the developer's browser reaches it as the host does.
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    const listed = (await tool.list(owner)).terminals.find((t) => t.id === id)!;
    expect(listed.sandbox).toBe('workspace');
    expect(listed.ports).toEqual([{ port, address: '127.0.0.1', pid: serverPid }]);
    const again = await tool.run(owner, { id, command: `python3 -m http.server ${port} --bind 127.0.0.1` });
    expect(again.port_in_use).toEqual([expect.objectContaining({ port, pid: serverPid, owner: 'you', session: id })]);
    // Only the job the agent started is "in the background": not bubblewrap's own process inside its PID namespace.
    expect(listed.background?.map((p) => p.command)).toEqual([expect.stringMatching(/^python3 -m http\.server/)]);
    expect(await tool.run(owner, { id, command: 'sleep 300', timeout_ms: 300 })).toMatchObject({ outcome: 'running' });
    const busy = (await tool.list(owner)).terminals.find((t) => t.id === id)!;
    expect(busy.background?.map((p) => p.command)).toEqual([expect.stringMatching(/^python3 -m http\.server/)]);

    const pid = service.get(id)!.pid;
    const hostPids = sessionProcesses(service.labels, { id, pid, running: true, wrapped: true }).map((p) => p.pid);
    const closed = await tool.close(owner, { id, force: true });
    expect(closed.ports_freed).toEqual([{ port, address: '127.0.0.1', pid: serverPid }]);
    // As the sandbox sees them: the shell, the server and the sleep; not bubblewrap, outside or as its init (1).
    expect(closed.ended?.map((p) => p.pid)).toEqual(expect.arrayContaining([serverPid]));
    expect(closed.ended?.map((p) => p.command)).not.toContainEqual(expect.stringMatching(/bwrap/));
    expect(closed.ended).toHaveLength(hostPids.length - 2);
    // Every process of the session is gone (or a zombie its parent has yet to reap), the shell and the server with it.
    for (const gone of hostPids) await until(() => !isAlive(gone), `${gone} ended`);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });
});

describe.skipIf(!available)('pids in results are the sandboxed shell\'s own', () => {
  it("terminal_create's pid is $$, terminal_list's background pid is $!, and kill with it inside ends the job", async () => {
    const made = await tool.create(owner, { cwd: workspace });
    const id = made.id;
    expect((await tool.run(owner, { id, command: 'echo $$' })).output).toBe(`${made.pid}\n`);
    const started = await tool.run(owner, { id, command: 'sleep 300 & echo $!' });
    const inner = lastNumber(started.output);
    // The job's child may not have exec'd sleep yet when the command returns: /proc then still names bash.
    const listedNow = async () => (await tool.list(owner)).terminals.find((t) => t.id === id)!;
    await until(async () => (await listedNow()).background?.[0]?.command === 'sleep 300', 'the job runs sleep');
    const listed = await listedNow();
    expect(listed.background).toEqual([expect.objectContaining({ pid: inner, command: 'sleep 300' })]);
    // The host's own pid for it is another number: the one the agent's kill would miss.
    const launcher = service.get(id)!.pid;
    const hostSleep = sessionProcesses(service.labels, { id, pid: launcher, running: true, wrapped: true }).find((p) => p.command === 'sleep 300')!;
    expect(hostSleep.pid).not.toBe(inner);

    expect(await tool.run(owner, { id, command: `kill ${listed.background![0]!.pid} && wait` })).toMatchObject({ outcome: 'completed' });
    await until(() => !isAlive(hostSleep.pid), 'the sleep ended');
    expect((await tool.list(owner)).terminals.find((t) => t.id === id)!.background).toEqual([]);
    await tool.close(owner, { id });
  });
});

describe.skipIf(!available)('a working directory of many entries', () => {
  it('is listed a slice per turn of the loop, its socket still hidden, and sessions are made in the order asked', async () => {
    // A shell filled its working directory with files: each later shell's start listed it whole on the host's loop
    // (200,000 took 754 ms), every session and the panel waiting. Counted per turn (a setImmediate each), not timed.
    const crowded = join(workspace, 'crowded');
    mkdirSync(crowded);
    const count = LISTED_PER_TURN * 8;
    for (let i = 0; i < count; i++) writeFileSync(join(crowded, `f${i}`), '');
    const socket = createServer();
    await new Promise<void>((resolve) => socket.listen(join(crowded, 'sock'), resolve));
    const meter = turnMeter(() => listedEntries.count);
    let most = 0;
    const [first, second] = await Promise.all([tool.create(owner, { cwd: crowded }), tool.create(owner, { cwd: workspace })]).finally(() => {
      most = meter.stop().mostPerTurn; // with what this turn listed, up to the create's end
    });
    socket.close();
    expect(listedEntries.count).toBeGreaterThan(count);
    expect(most).toBeLessThanOrEqual(LISTED_PER_TURN);
    expect(first.sandbox?.hidden).toContain(join(realpathSync(crowded), 'sock'));
    expect((await tool.run(owner, { id: first.id, command: 'test -S sock && echo reachable || echo hidden' })).output).toBe('hidden\n');
    // The second waited for the first's listing: sessions are made in the order they were asked for, as before.
    const ids = service.list().map((info) => info.id);
    expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id));
    await Promise.all([tool.close(owner, { id: first.id }), tool.close(owner, { id: second.id })]);
    rmSync(crowded, { recursive: true, force: true });
  });
});

describe.skipIf(!available)("a typical agent's work in the workspace sandbox", () => {
  it('git init and commit, npm install of a local tarball, a venv with a local wheel; the key stays hidden', async () => {
    const id = await sandboxedShell();
    const run = async (command: string) => {
      const result = await tool.run(owner, { id, command, timeout_ms: 180_000, max_bytes: 64 * 1024 });
      expect(result, `${command}\n${result.output}`).toMatchObject({ outcome: 'completed', exit_code: 0 });
      return result.output;
    };
    await run('git init -q repo && cd repo && git config user.email a@example.com && git config user.name agent');
    await run('echo hello > hello.txt && git add hello.txt && git commit -qm "first" && cd ..');
    expect(readFileSync(join(workspace, 'repo', '.git', 'HEAD'), 'utf8')).toMatch(/ref: refs\/heads\//);

    await run(`mkdir tiny && cd tiny && printf '{"name":"tiny-pkg","version":"1.0.0","main":"index.js"}' > package.json && echo 'module.exports = 42;' > index.js && npm pack --silent && cd ..`);
    await run(`mkdir app && cd app && printf '{"name":"app","version":"1.0.0"}' > package.json && npm install --offline --no-audit --no-fund ../tiny/tiny-pkg-1.0.0.tgz && cd ..`);
    expect(await run(`node -p "require('./app/node_modules/tiny-pkg')"`)).toBe('42\n');

    writeFileSync(join(workspace, 'make_wheel.py'), WHEEL_MAKER);
    await run('python3 make_wheel.py && python3 -m venv .venv');
    await run('.venv/bin/pip install --no-index --disable-pip-version-check ./tinywheel-1.0-py3-none-any.whl');
    expect(await run(`.venv/bin/python -c 'import tinywheel; print(tinywheel.ANSWER)'`)).toBe('42\n');

    const key = await tool.run(owner, { id, command: 'cat ~/.ssh/id_*' });
    expect(key.exit_code).not.toBe(0);
    expect(key.output).not.toContain('PRIVATE-KEY-MATERIAL');
    await tool.close(owner, { id });
  }, 300_000);
});

describe.skipIf(!available)('keystrokes injected with TIOCSTI', () => {
  it("reach the sandboxed shell's own terminal and never the developer's tab", async () => {
    const developer = service.create({ source: 'user', command: 'cat', title: 'developer' });
    // Once cat runs (node-pty's child has the terminal as its stdin only after its exec).
    await until(() => /^\/dev\/pts\/\d+$/.test(linkOf(`/proc/${developer.pid}/fd/0`)), "the developer's cat reads its terminal");
    const devTty = linkOf(`/proc/${developer.pid}/fd/0`);
    const id = await sandboxedShell();
    const inject = (path: string) =>
      `python3 -c 'import fcntl, os, sys, termios\nfd = os.open(sys.argv[1], os.O_RDWR)\nfor b in b"echo INJECTED-$((6*7))\\n": fcntl.ioctl(fd, termios.TIOCSTI, bytes([b]))' ${path}`;

    // Its own terminal: allowed where the kernel allows TIOCSTI at all (legacy_tiocsti); the shell runs the line.
    if (legacyTiocsti()) {
      expect((await tool.run(owner, { id, command: inject('/dev/tty') })).exit_code).toBe(0);
      expect((await tool.wait(owner, { id, until: 'pattern', pattern: '^INJECTED-42', timeout_ms: 20_000 })).reason).toBe('pattern');
      // The injected line's output comes before its prompt: the next run is refused as busy until the shell is back.
      await until(async () => (await tool.list(owner)).terminals.find((t) => t.id === id)?.state === 'idle_at_prompt', 'the injected line ran and the prompt is back');
    }
    // The developer's terminal is not in the sandbox's /dev, and no process outside is in its /proc.
    const devTab = await tool.run(owner, { id, command: inject(devTty) });
    expect(devTab.exit_code).not.toBe(0);
    expect(devTab.output).toMatch(/No such file or directory/);
    const viaProc = await tool.run(owner, { id, command: inject(`/proc/${developer.pid}/fd/0`) });
    expect(viaProc.exit_code).not.toBe(0);
    expect((await tool.run(owner, { id, command: 'ls /dev/pts' })).output).toBe('ptmx\n');

    // A line the developer types reaches the developer's cat, and nothing injected came before it.
    service.write(developer.id, 'typed by the developer\r');
    const seen = await waitForOutput(service, developer.id, 'typed by the developer\r\ntyped by the developer');
    expect(seen).not.toContain('INJECTED');
    service.kill(developer.id);
    await tool.close(owner, { id });
  });
});

/** What `echo $!` printed, after bash's own "[1] <pid>" job line. */
function lastNumber(output: string): number {
  return Number(output.trim().split('\n').at(-1));
}

function linkOf(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

/** The terminal's foreground process group leader as the kernel says (the session leader's tpgid): its name and state. */
function foregroundOf(sessionPid: number): { comm: string; state: string } | undefined {
  try {
    const tpgid = Number(statFields(sessionPid)[5]);
    return { comm: readFileSync(`/proc/${tpgid}/comm`, 'utf8').trim(), state: statFields(tpgid)[0]! };
  } catch {
    return undefined;
  }
}

/** /proc/<pid>/stat's fields after the command name: state, ppid, pgrp, session, tty_nr, tpgid, … */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function legacyTiocsti(): boolean {
  try {
    return readFileSync('/proc/sys/dev/tty/legacy_tiocsti', 'utf8').trim() === '1';
  } catch {
    return true; // Kernels before 6.2 have no switch: TIOCSTI is always allowed.
  }
}

/** A pure-Python wheel written by hand (zip, METADATA, WHEEL, RECORD), so no build backend or network is needed. */
const WHEEL_MAKER = `import base64, hashlib, zipfile
files = {
    'tinywheel/__init__.py': b'ANSWER = 42\\n',
    'tinywheel-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\\nName: tinywheel\\nVersion: 1.0\\n',
    'tinywheel-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n',
}
record = []
with zipfile.ZipFile('tinywheel-1.0-py3-none-any.whl', 'w') as wheel:
    for name, data in files.items():
        wheel.writestr(name, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
        record.append(f'{name},sha256={digest},{len(data)}')
    record.append('tinywheel-1.0.dist-info/RECORD,,')
    wheel.writestr('tinywheel-1.0.dist-info/RECORD', '\\n'.join(record) + '\\n')
`;
