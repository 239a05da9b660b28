import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPtyService } from '../pty/pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { readAll, waitForExit, waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { ASKER_PID_HEADER, HOST_PROTOCOL_VERSION, PANEL_ATTACH_PARAM, PANEL_ATTACHED_HEADER, PANEL_SUBPROTOCOL, PANEL_WS_PATH, type SessionInfo } from '@ptydeck/contract';
import { openWebSocket } from './web-socket.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { lostRecord } from '../testing/lost-records.js';
import { TmuxServer, type TmuxPane } from '../testing/tmux.js';
import { until } from '../testing/poll-until.js';
import { sandboxAvailability } from '../sandbox/availability.js';

/**
 * Issue 23: `ptydeck ls` and `ptydeck attach`, the real CLI against a real
 * server, driven through tmux as a person at a terminal would.
 */

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DETACH = '\x1cd';

let stateDir: string;
let binDir: string;
let env: Record<string, string>;
let service: PtyService;
let server: LocalServer;
let tmux: TmuxServer;
let agent: Client | undefined;

beforeAll(async () => {
  // The launcher runs the built CLI, which vitest's global setup builds.
  stateDir = fileTempDir('ptydeck-attach-state-');
  // `ptydeck` on PATH, for the panes' shells and the sessions' alike.
  binDir = fileTempDir('ptydeck-attach-bin-');
  writeFileSync(join(binDir, 'ptydeck'), `#!/bin/sh\nexec "${process.execPath}" "${join(packageRoot, 'bin', 'ptydeck.js')}" "$@"\n`);
  chmodSync(join(binDir, 'ptydeck'), 0o755);
  const base = Object.fromEntries(Object.entries(isolatedEnv()).filter((entry): entry is [string, string] => entry[1] !== undefined && !['PTYDECK_SESSION_ID', 'TMUX', 'TMUX_PANE', 'NO_COLOR', 'FORCE_COLOR'].includes(entry[0])));
  env = { ...base, PATH: `${binDir}:${process.env.PATH ?? ''}`, PTYDECK_STATE_DIR: stateDir, PS1: 'sh$ ', TERM: 'xterm-256color' };
  service = createPtyService({ env, killGraceMs: 500 });
  server = await startLocalServer({ service, stateDir, appDir: '/nonexistent' });
  tmux = new TmuxServer(env);
});

afterAll(async () => {
  await agent?.close();
  tmux?.kill();
  await server?.close();
  await service?.dispose();
});

function shellSession(): string {
  return service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'], cols: 80, rows: 24 }).id;
}

/** A pane with a shell of its own: what a developer's terminal is before and after attach. */
async function shellPane(): Promise<TmuxPane> {
  const pane = tmux.pane("env 'PS1=sh$ ' bash --norc --noprofile");
  await pane.waitFor('sh$');
  // The shell's own terminal settings, to compare with after attach ends.
  pane.type('S0=$(stty -g)');
  return pane;
}

/** The terminal as attach found it: cooked mode, main screen, cursor shown, no mouse, normal keys. */
async function expectRestored(pane: TmuxPane): Promise<void> {
  pane.type('[ "$(stty -g)" = "$S0" ] && echo "tty-$((1+1))-same" || echo tty-changed');
  // At a line's start: the command line typed holds both words too.
  await pane.waitFor(/^(tty-2-same|tty-changed)$/m);
  expect(pane.screen()).toContain('tty-2-same');
  expect(pane.format('#{alternate_on} #{cursor_flag} #{keypad_cursor_flag} #{mouse_any_flag}')).toBe('0 1 0 0');
}

describe('ptydeck ls', () => {
  it('lists every session as a table and as JSON, with its ports; status shows the host; no running ptydeck is one line and a non-zero exit', async () => {
    const mine = shellSession();
    await waitForOutput(service, mine, 'sh$');
    // An agent's shell, over MCP: its owner is the agent's name, and its shell integration says when it sits at its prompt.
    agent = new Client({ name: 'ls-test-agent', version: '1' });
    await agent.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: { Authorization: `Bearer ${server.agentToken}` } } }));
    const ran = await agent.callTool({ name: 'terminal_run', arguments: { command: 'false' } });
    const agentSession = (ran.structuredContent as { id: string }).id;
    await sessionMatches(agentSession, (info) => info.shell?.state === 'idle');
    // Not spawnSync: the server answering it runs in this process.
    const run = (args: string[], extra: Record<string, string> = {}) =>
      promisify(execFile)('ptydeck', args, { encoding: 'utf8', env: { ...env, ...extra } }).then(
        ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({ status: error.code, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
      );

    // A server in the session: no panel watches, so ls's own connection has the host look at the ports.
    service.write(mine, `${process.execPath} -e "require('net').createServer().listen(0, '127.0.0.1', function () { console.log('listening-' + this.address().port) })"\r`);
    const port = /listening-(\d+)/.exec(await waitForOutput(service, mine, /listening-\d+/))![1]!;
    const table = await run(['ls']);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+SOURCE\s+OWNER\s+TITLE\s+STATE\s+SANDBOX\s+PORTS\s+CWD\s+AGE/);
    expect(table.stdout).toMatch(new RegExp(`${mine.slice(0, 8)}\\s+user\\s+you\\s+.*running\\s+-\\s+${port}\\s`));
    // The agent's shell runs in the host's default sandbox where bubblewrap works, and says so where it does not.
    const profile = sandboxAvailability('workspace').ok ? 'workspace' : 'unsandboxed';
    expect(table.stdout).toMatch(new RegExp(`${agentSession.slice(0, 8)}\\s+agent\\s+ls-test-agent\\s+.*idle_at_prompt\\s+${profile}\\s`));

    const json = await run(['ls', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const entries = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    const entry = entries.find((e) => e.id === mine)!;
    expect(entry).toMatchObject({ id: mine, source: 'user', owner: 'you', state: 'running', pid: service.get(mine)!.pid, exit_code: null, ports: [expect.objectContaining({ port: Number(port), address: '127.0.0.1' })] });
    expect(Object.keys(entry)).toEqual(expect.arrayContaining(['id', 'source', 'owner', 'title', 'state', 'pid', 'cwd', 'exit_code']));
    expect(entries.find((e) => e.id === agentSession)).toMatchObject({ source: 'agent', owner: 'ls-test-agent', state: 'idle_at_prompt', last_exit_code: 1, sandbox: expect.objectContaining({ profile: profile === 'workspace' ? 'workspace' : 'off' }) });
    expect(entry.sandbox).toBeNull();

    // The host as it says itself over its panel connection: here the server runs in this very process.
    const status = await run(['status']);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain(`ptydeck host running, pid ${process.pid}`);
    expect(status.stdout).toMatch(new RegExp(`state dir +${stateDir}\\n`));
    expect(status.stdout).toMatch(/agents +\d+ connected: .*ls-test-agent/);
    const facts = JSON.parse((await run(['status', '--json'])).stdout) as Record<string, unknown>;
    expect(facts).toMatchObject({ pid: process.pid, version: expect.stringMatching(/^\d+\.\d+/), protocol: HOST_PROTOCOL_VERSION, state_dir: stateDir, url: server.url });
    expect(facts.sessions).toMatchObject({ total: service.list().length, running: expect.any(Number), idle_at_prompt: 1 });
    expect(facts.uptime_ms).toBeGreaterThan(0);

    const unknown = await run(['attach', 'zzz']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(new RegExp(`no session matches 'zzz'; sessions: .*${mine.slice(0, 8)}`));
    expect((await run(['attach', ''])).status).toBe(2);
    for (const command of ['ls', 'attach', 'status']) {
      const help = await run([command, '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: ptydeck ${command}`));
    }

    for (const command of ['ls', 'status']) {
      const none = await run([command], { PTYDECK_STATE_DIR: fileTempDir('ptydeck-attach-none-') });
      expect(none.status).toBe(1);
      expect(none.stdout).toBe('');
      expect(none.stderr.trim().split('\n')).toEqual([expect.stringMatching(/no running ptydeck host answers for .*; start one with `ptydeck`/)]);
    }
  });

  it('ls, status and attach are refused inside a ptydeck session, saying so', async () => {
    const inside = shellSession();
    await waitForOutput(service, inside, 'sh$');
    const target = shellSession();
    service.write(inside, `ptydeck ls; echo "ls-rc=$?"; ptydeck status; echo "status-rc=$?"; ptydeck attach ${target}; echo "attach-rc=$?"\r`);
    const output = await waitForOutput(service, inside, /attach-rc=\d/);
    expect(output).toMatch(/ls-rc=1/);
    expect(output).toMatch(/status-rc=1/);
    expect(output).toMatch(/attach-rc=1/);
    expect(output).toMatch(/`ptydeck ls` is refused inside a ptydeck session/);
    expect(output).toMatch(/`ptydeck status` is refused inside a ptydeck session/);
    expect(output).toMatch(/`ptydeck attach` is refused inside a ptydeck session/);
    // Nothing of the list reached the session: the host refused before answering it.
    expect(output).not.toMatch(/^ID\s+SOURCE|ptydeck host running/m);
  });
});

describe('ptydeck attach', () => {
  it('draws the current screen at once, then live output; read-only: typed keys reach nothing; Ctrl-\\ d detaches, the session runs on, the terminal is restored', async () => {
    const id = shellSession();
    service.write(id, 'echo "before-$((6*7))"\r');
    await waitForOutput(service, id, 'before-42');
    const pane = await shellPane();
    pane.type(`ptydeck attach ${id.slice(0, 6)}; echo "attach-rc=$?"`);
    const first = await pane.waitFor('before-42');
    expect(first).toMatch(/attached to [\s\S]* read-only [\s\S]* Ctrl-\\ d detaches/);

    service.write(id, 'echo "live-$((2*3))"\r');
    await pane.waitFor('live-6');

    pane.type('echo typed-$((5*5))');
    pane.keys(['C-c']);
    // A read-only attach never resizes the session, whatever its own window does.
    tmux.tmux('resize-window', '-t', pane.id, '-x', '90', '-y', '25');
    pane.keys([DETACH], true);
    await pane.waitFor(/attach-rc=0/);
    expect(pane.screen()).toMatch(/detached from/);
    // Whatever attach had sent is in before the marker's echo: the typed line never reached the shell.
    service.write(id, 'echo "marker-$((3*3))"\r');
    await waitForOutput(service, id, 'marker-9');
    expect(readAll(service, id).toString('utf8')).not.toContain('typed-');
    expect(service.get(id)).toMatchObject({ cols: 80, rows: 24 });
    expect(service.get(id)!.status).toBe('running');
    await expectRestored(pane);
  });

  it('fits its status line in a narrow terminal: one line, the detach key kept (a wrapped one left its tail above the screen)', async () => {
    const id = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'], cols: 120, rows: 32 }).id;
    service.write(id, 'echo "wide-$((7*7))"\r');
    await waitForOutput(service, id, 'wide-49');
    const pane = tmux.pane("env 'PS1=sh$ ' bash --norc --noprofile", { cols: 60, rows: 20 });
    await pane.waitFor('sh$');
    pane.type(`clear; ptydeck attach ${id.slice(0, 8)}`);
    const shown = await pane.waitFor('wide-49');
    const lines = shown.split('\n');
    const status = lines.findIndex((line) => line.includes('Ctrl-\\ d detaches'));
    expect(status, shown).toBeGreaterThanOrEqual(0);
    expect(lines[status]).toMatch(/read-only/);
    expect(lines[status]).toMatch(/120x32/);
    // The line after it is the session's screen, not the status line's tail.
    expect(lines[status + 1], shown).toMatch(/^\$ |echo "wide/);
    pane.keys([DETACH], true);
    await pane.waitFor(/detached from/);
  });

  it('asks for the session\'s screen before it sets up the terminal, so the host draws it while stty runs', async () => {
    const id = shellSession();
    service.write(id, 'echo "ready-$((4*4))"\r');
    await waitForOutput(service, id, 'ready-16');
    // An stty that holds attach inside its terminal set-up until the test lets it go (once; the restore's runs through).
    const dir = fileTempDir('ptydeck-attach-stty-');
    const gate = join(dir, 'gate');
    execFileSync('mkfifo', [gate]);
    const stty = execFileSync('sh', ['-c', 'command -v stty'], { encoding: 'utf8', env }).trim();
    writeFileSync(join(dir, 'stty'), `#!/bin/sh\n[ -e '${dir}/passed' ] || { read _ < '${gate}'; : > '${dir}/passed'; }\nexec '${stty}' "$@"\n`);
    chmodSync(join(dir, 'stty'), 0o755);
    const pane = await shellPane();
    let asked = false;
    const read = service.read.bind(service);
    service.read = (sessionId, options) => {
      // The read attaching makes (viewer-streams.ts), not the timeline's when the connection opens.
      if (sessionId === id && new Error().stack?.includes('ViewerStreams.attach')) asked = true;
      return read(sessionId, options);
    };
    try {
      pane.type(`PATH='${dir}':$PATH ptydeck attach ${id.slice(0, 6)}; echo "attach-rc=$?"`);
      await until(() => asked, 'the host is asked for the session while stty waits');
    } finally {
      service.read = read;
      // Async: the open waits for stty's end of the pipe, and this process is the host.
      await writeFile(gate, 'go\n');
    }
    await pane.waitFor('ready-16');
    pane.keys([DETACH], true);
    await pane.waitFor(/attach-rc=0/);
    await expectRestored(pane);
  });

  it('names the session in its handshake: the host sends its screen right after the snapshot, with no attach message; a name that matches no one session attaches nothing', async () => {
    const id = shellSession();
    service.write(id, 'echo "named-$((6*7))"\r');
    await waitForOutput(service, id, 'named-42');
    const open = (target: string) =>
      openWebSocket(new URL(`${server.url.replace(/^http/, 'ws')}${PANEL_WS_PATH}?${PANEL_ATTACH_PARAM}=${encodeURIComponent(target)}`), {
        protocols: [PANEL_SUBPROTOCOL],
        headers: { [ASKER_PID_HEADER]: String(process.pid) },
        timeoutMs: 5000,
        maxMessage: 1 << 24,
      });
    const ws = await open(id.slice(0, 6));
    const types: string[] = [];
    let screen: string | undefined;
    try {
      expect(ws.headers[PANEL_ATTACHED_HEADER]).toBe(id);
      ws.onMessage(({ data, binary }) => {
        if (binary) return;
        const message = JSON.parse(data.toString('utf8')) as { type: string; id?: string; screen?: string };
        types.push(message.type);
        if (message.type === 'resync' && message.id === id) screen = message.screen;
      });
      // Nothing sent on the socket: the screen comes for the handshake's name alone.
      await until(() => screen !== undefined, 'the named session\'s resync');
      expect(screen).toContain('named-42');
      expect(types[0]).toBe('snapshot');
    } finally {
      ws.terminate();
    }
    for (const target of ['', 'not-an-id']) {
      const other = await open(target);
      other.terminate();
      expect(other.headers[PANEL_ATTACHED_HEADER]).toBeUndefined();
    }
    // The CLI on pipes, as a script runs it: the screen written straight to its stdout before it reads its stdin, then
    // the detach keys read from the pipe.
    const piped = spawn(process.execPath, [join(packageRoot, 'bin', 'ptydeck.js'), 'attach', id.slice(0, 6)], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    piped.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    piped.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => piped.once('exit', resolve));
    await until(() => out.includes('named-42'), 'the screen on the pipe');
    piped.stdin.end(DETACH);
    expect(await exited).toBe(0);
    expect(err).toContain(`detached from ${id.slice(0, 8)}`);
  });

  it('--write runs a command and sends Ctrl-C; the session exit code is attach\'s, and the terminal is restored', async () => {
    const id = shellSession();
    await waitForOutput(service, id, 'sh$');
    const pane = await shellPane();
    pane.type(`ptydeck attach --write ${id}; echo "attach-rc=$?"`);
    await pane.waitFor(/attached to .* writing/);
    pane.type('echo "written-$((3*4))"');
    await waitForOutput(service, id, 'written-12');
    await pane.waitFor('written-12');
    // A writer's size is the session's: on attach, when its window changes, and again when it types after another client resized.
    expect(service.get(id)).toMatchObject({ cols: 100, rows: 30 });
    tmux.tmux('resize-window', '-t', pane.id, '-x', '90', '-y', '25');
    await sessionSize(id, 90, 25);
    service.resize(id, 70, 20);
    // Output after the resize reaches attach behind its event, on the same socket: attach knows of it once this shows.
    service.write(id, 'echo "resized-$((7*7))"\r');
    await pane.waitFor('resized-49');
    pane.type('echo "typed-$((2*4))"');
    await waitForOutput(service, id, 'typed-8');
    expect(service.get(id)).toMatchObject({ cols: 90, rows: 25 });

    pane.type('sleep 100; echo not-interrupted');
    await waitForOutput(service, id, /sleep 100; echo not-interrupted\r\n/);
    pane.keys(['C-c']);
    pane.type('echo "after-$((1+1))"');
    await waitForOutput(service, id, 'after-2');
    pane.type('exit 7');
    await pane.waitFor(/attach-rc=7/);
    expect(pane.screen()).toMatch(/ended: exit code 7/);
    expect(readAll(service, id).toString('utf8')).not.toMatch(/\nnot-interrupted/);
    await expectRestored(pane);
  });

  it('exits with the session\'s exit code (pane_dead_status), also for a session that already ended', async () => {
    const id = shellSession();
    await waitForOutput(service, id, 'sh$');
    const live = tmux.pane(`ptydeck attach ${id}`);
    await live.waitFor('read-only');
    service.write(id, 'exit 3\r');
    expect(await live.exitStatus(), live.screen()).toBe(3);
    await waitForExit(service, id);
    const ended = tmux.pane(`ptydeck attach ${id}`);
    expect(await ended.exitStatus(), ended.screen()).toBe(3);
    expect(ended.screen()).toMatch(/ended: exit code 3/);
  });

  it('SIGTERM, SIGHUP and a lost ptydeck each end attach with the terminal restored and the session untouched', async () => {
    const id = shellSession();
    await waitForOutput(service, id, 'sh$');
    for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
      const pane = await shellPane();
      pane.type(`ptydeck attach ${id}; echo "attach-rc=$?"`);
      await pane.waitFor('read-only');
      const attach = attachPidIn(pane);
      process.kill(attach, signal);
      await pane.waitFor(/attach-rc=\d+/);
      expect(pane.screen()).toMatch(signal === 'SIGTERM' ? /attach-rc=143/ : /attach-rc=129/);
      await expectRestored(pane);
    }
    expect(service.get(id)!.status).toBe('running');

    // A second ptydeck of its own, so closing it leaves the others' server alone.
    const otherState = fileTempDir('ptydeck-attach-lost-');
    const otherService = createPtyService({ env, killGraceMs: 500 });
    const other = await startLocalServer({ service: otherService, stateDir: otherState, appDir: '/nonexistent' });
    try {
      const otherId = otherService.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'] }).id;
      const pane = await shellPane();
      pane.type(`PTYDECK_STATE_DIR=${otherState} ptydeck attach ${otherId}; echo "attach-rc=$?"`);
      await pane.waitFor('read-only');
      await other.close();
      await pane.waitFor(/attach-rc=1/);
      // This server runs in the test's own process, which lives on: the connection is lost, not the host.
      expect(pane.screen()).toMatch(/lost the ptydeck host \(pid \d+\), which still runs/);
      await expectRestored(pane);
    } finally {
      await other.close();
      await otherService.dispose();
    }
  });

  it('a lost session: ls says lost; attach draws what was saved, says it is lost and exits 3; --write is refused', async () => {
    const lost = service.restore(lostRecord({ title: 'lost-shell' }, 'sh$ echo saved\r\nsaved-$((6*7))\r\nsaved-42\r\n', { start: 4096, unwrittenBytes: 2048 }));
    const pane = await shellPane();
    pane.type(`ptydeck ls | grep lost-shell; ptydeck ls --json | grep -c '"state": "lost"'`);
    await pane.waitFor(new RegExp(`${lost.id.slice(0, 8)}\\s+user\\s+you\\s+lost-shell\\s+lost\\s`));
    await pane.waitFor(/^1$/m);

    pane.type(`ptydeck attach ${lost.id.slice(0, 8)}; echo "attach-rc=$?"`);
    const shown = await pane.waitFor(/attach-rc=\d+/);
    expect(shown).toMatch(/attached to .* lost: its process is gone/);
    expect(shown).toContain('saved-42');
    // The pane wraps the long line: what counts is said before the wrap.
    expect(shown).toMatch(/session [0-9a-f]{8} is lost: the host restarted; output as last saved \(at least 2\.0 KiB/);
    expect(shown).toMatch(/attach-rc=3/);
    await expectRestored(pane);

    const writer = await shellPane();
    writer.type(`ptydeck attach --write ${lost.id}; echo "attach-rc=$?"`);
    const refused = await writer.waitFor(/attach-rc=\d+/);
    expect(refused).toMatch(/attach-rc=1/);
    expect(refused).toMatch(/is lost: its process is gone/);
    expect(service.get(lost.id)!.status).toBe('lost');
  });

  it('a full-screen program comes back whole; a writer makes it redraw at its size', async () => {
    const script = join(fileTempDir('ptydeck-attach-fullscreen-'), 'fullscreen.mjs');
    writeFileSync(
      script,
      `let redraws = 0;
const draw = () => {
  const { columns, rows } = process.stdout;
  process.stdout.write('\\x1b[?1h\\x1b[2J\\x1b[1;1HTOP-LINE redraws=' + redraws++ + '\\x1b[' + Math.floor(rows / 2) + ';20HMIDDLE-LINE\\x1b[' + rows + ';1HBOTTOM-LINE ' + columns + 'x' + rows);
};
process.stdout.write('\\x1b[?1049h\\x1b[?25l');
draw();
process.stdout.on('resize', draw);
process.stdin.setRawMode(true);
process.stdin.on('data', () => {});
`,
    );
    const id = service.create({ source: 'user', command: process.execPath, args: [script], cols: 80, rows: 24 }).id;
    await waitForOutput(service, id, 'BOTTOM-LINE 80x24');

    const reader = await shellPane();
    reader.type(`ptydeck attach ${id}; echo "attach-rc=$?"`);
    const screen = await reader.waitFor('BOTTOM-LINE 80x24');
    const lines = screen.split('\n');
    expect(lines[0]).toContain('TOP-LINE redraws=0');
    expect(lines[11]).toContain('MIDDLE-LINE');
    expect(lines[23]).toContain('BOTTOM-LINE 80x24');
    expect(reader.format('#{alternate_on} #{keypad_cursor_flag}')).toBe('1 1');
    reader.keys([DETACH], true);
    await reader.waitFor(/attach-rc=0/);
    await expectRestored(reader);
    expect(service.get(id)).toMatchObject({ cols: 80, rows: 24 });

    const writer = await shellPane();
    writer.type(`ptydeck attach --write ${id}; echo "attach-rc=$?"`);
    const redrawn = await writer.waitFor('BOTTOM-LINE 100x30');
    expect(redrawn.split('\n')[29]).toContain('BOTTOM-LINE 100x30');
    expect(redrawn).toMatch(/TOP-LINE redraws=[1-9]/);
    writer.keys([DETACH], true);
    await writer.waitFor(/attach-rc=0/);
    await expectRestored(writer);

    // At the writer's own size no resize is due: attach nudges the program to redraw all the same.
    const sameSize = service.create({ source: 'user', command: process.execPath, args: [script], cols: 100, rows: 30 }).id;
    await waitForOutput(service, sameSize, 'BOTTOM-LINE 100x30');
    const nudged = await shellPane();
    nudged.type(`ptydeck attach --write ${sameSize}; echo "attach-rc=$?"`);
    await nudged.waitFor(/TOP-LINE redraws=2[\s\S]*BOTTOM-LINE 100x30/);
    expect(service.get(sameSize)).toMatchObject({ cols: 100, rows: 30 });
    nudged.keys([DETACH], true);
    await nudged.waitFor(/attach-rc=0/);
  });

  it('gives this terminal what draws, never a request: no OSC 52, title, report request or mouse mode reaches it, and with --write nothing is typed back', async () => {
    // Each thing the session writes is followed by a letter, so the text around it shows it was drawn in place.
    const requests = [
      '\x1b]52;c;aGVsbG8=\x07', // OSC 52: set the developer's clipboard
      '\x1b]52;c;?\x07', // OSC 52: read it back, typed into the session
      '\x1b]0;session-set-title\x07',
      '\x1b]8;;https://example.com\x07',
      '\x1b]11;?\x07', // background colour query
      '\x1b[6n', // cursor position report
      '\x1b[c', // DA1
      '\x1b[>c', // DA2
      '\x1b[>0q', // XTVERSION
      '\x1bP$qm\x1b\\', // DECRQSS
      '\x1b[?1000h\x1b[?1006h', // mouse reports, typed as keys
      '\x1b[?1004h', // focus events
      '\u009b5n', // C1 CSI (UTF-8): a device status report
    ];
    const dir = fileTempDir('ptydeck-attach-requests-');
    const script = join(dir, 'requests.mjs');
    writeFileSync(
      script,
      `process.stdin.setRawMode(true);
process.stdout.write('WAITING\\r\\n');
let asked = false;
process.stdin.on('data', (data) => {
  // The first key (the test's, not attach's) has it write the requests, live to whoever is attached.
  if (!asked) {
    asked = true;
    return process.stdout.write(${JSON.stringify(requests.map((request, i) => `${request}${String.fromCharCode(97 + i)}`).join(''))} + '|\\r\\nREADY-' + 6 * 7 + '\\r\\n');
  }
  // Every byte that reaches the session after them, shown: a typed-back answer would be here.
  process.stdout.write('GOT:' + JSON.stringify(data.toString('latin1')) + '\\r\\n');
});
`,
    );
    const id = service.create({ source: 'user', command: process.execPath, args: [script], cols: 80, rows: 24 }).id;
    // A title given at creation (an agent's terminal_create names it) is not cleaned as one its program sets is.
    const titled = service.create({ source: 'user', command: 'cat', cols: 80, rows: 24, title: 'evil\x1b]52;c;?\x07\u009b6n-title' }).id;
    await waitForOutput(service, id, 'WAITING');

    const pane = await shellPane();
    const received = join(dir, 'terminal-received');
    pane.recordOutput(received);
    pane.type(`ptydeck attach --write ${id}; echo "attach-rc=$?"`);
    await pane.waitFor(/writing[\s\S]*WAITING/);
    service.write(id, 'g');
    await pane.waitFor('READY-42');
    // The letters drawn in a row: every request was dropped whole, none shown as text (a C1 CSI's "5n" is text once its introducer is gone).
    expect(pane.screen()).toContain('abcdefghijkl5nm|');
    // Anything the terminal answered is in attach's input before this marker, so reaches the session before it.
    pane.keys(['zz-end'], true);
    const output = await waitForOutput(service, id, /GOT:.*zz-end/);
    const typed = output
      .slice(output.indexOf('READY-42'))
      .match(/GOT:.*/g)!
      .map((line) => JSON.parse(line.slice('GOT:'.length).trim()) as string)
      .join('');
    expect(typed).toBe('zz-end');
    expect(pane.format('#{mouse_any_flag} #{focus_flag}')).not.toMatch(/^1/);
    expect(pane.format('#{pane_title}')).not.toContain('session-set-title');
    pane.keys([DETACH], true);
    await pane.waitFor(/attach-rc=0/);
    pane.type(`clear; ptydeck attach ${titled}; echo "attach-rc=$?"`);
    // The status line shows the title with its controls made spaces.
    await pane.waitFor(/attached to [0-9a-f]{8} "evil \]52;c;\?  6n-title" \(you\) · read-only/);
    pane.keys([DETACH], true);
    await pane.waitFor(/attach-rc=0/);

    pane.type('echo "recorded-$((4*4))"');
    await until(() => existsSync(received) && readFileSync(received, 'latin1').includes('recorded-16'), 'the pane output is recorded');
    const bytes = readFileSync(received, 'latin1');
    for (const request of [...requests, '\x1b]', '\x1bP', '\x9b', '\x9d']) {
      expect(bytes.includes(Buffer.from(request, 'utf8').toString('latin1')), JSON.stringify(request)).toBe(false);
    }
    await expectRestored(pane);
  });

  it('a flood it fell behind ends in a fresh screen, not a backlog; attach stays attached', async () => {
    const id = shellSession();
    await waitForOutput(service, id, 'sh$');
    // attach as the pane's program, not a job of an interactive shell: that shell would take the terminal back while it is stopped.
    const pane = tmux.pane(`ptydeck attach ${id}`);
    await pane.waitFor('read-only');
    // Stopped, attach reads nothing while more than the session's log (4 MiB) goes by: the server must skip it ahead.
    const attach = Number(pane.format('#{pane_pid}'));
    process.kill(attach, 'SIGSTOP');
    try {
      service.write(id, 'seq 1 1000000; echo "flood-$((4*5))-done"\r');
      await waitForOutput(service, id, 'flood-20-done', 60_000);
    } finally {
      process.kill(attach, 'SIGCONT');
    }
    await pane.waitFor(/999999\n1000000\nflood-20-done\nsh\$/, 60_000);
    service.write(id, 'echo "after-$((5*5))"\r');
    await pane.waitFor('after-25');
    pane.keys([DETACH], true);
    expect(await pane.exitStatus()).toBe(0);
  }, 120_000);
});

/** Resolves once the session has this size (a pty.updated event), at once if it has it already. */
function sessionSize(id: string, cols: number, rows: number): Promise<void> {
  return sessionMatches(id, (info) => info.cols === cols && info.rows === rows);
}

/** Resolves once the session's info satisfies `holds` (a pty.updated event), at once if it does already. */
function sessionMatches(id: string, holds: (info: SessionInfo) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const has = () => {
      const info = server.facts.get(id);
      return info !== undefined && holds(info);
    };
    if (has()) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`session ${id} never got there: ${JSON.stringify(server.facts.get(id))}`));
    }, 20_000);
    const off = server.facts.on('pty.updated', () => {
      if (!has()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

/** The attach process running in a pane's shell. */
function attachPidIn(pane: TmuxPane): number {
  const shell = pane.format('#{pane_pid}');
  const children = spawnSync('pgrep', ['-P', shell], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);
  // The `ptydeck` wrapper execs node, so the shell's child is attach itself.
  if (children.length !== 1) throw new Error(`expected one child of the pane's shell, found ${children.join(', ') || 'none'}`);
  return Number(children[0]);
}
