import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOptional } from '../proc/proc-fs.js';
import { carrying, running } from '../testing/carrying.js';
import { until } from '../testing/poll-until.js';
import { connectMcp, type McpCaller } from '../testing/mcp-client.js';
import { useRealShells } from '../testing/real-shells.js';

/**
 * What an agent's shell leaves running, through the official MCP SDK client
 * (which checks every result against its tool's output schema): background
 * and detached jobs and their listening ports, seen by terminal_list and
 * terminal_wait, and ended by terminal_close. Linux only, like the tracking.
 */

const owner = { id: 'conn-owned-processes' };
const shells = useRealShells('owned-processes', owner);
let mcp: McpCaller;

beforeAll(async () => {
  mcp = await connectMcp(shells.tool, owner.id);
});

afterAll(async () => {
  await mcp.close();
});

function accepts(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * A daemon as servers make themselves one: it listens on loopback (IPv4 and
 * IPv6), then double-forks out of the shell's tree and POSIX session with
 * its output on /dev/null. The first process prints the daemon's pid and
 * ports once only the daemon holds them, then exits.
 */
const DAEMON = `
import os, socket, time
listening = []
for family, host in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::1')):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.bind((host, 0))
    s.listen()
    listening.append(s)
ready_r, ready_w = os.pipe()
middle = os.fork()
if middle == 0:
    os.setsid()
    if os.fork() == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.write(ready_w, str(os.getpid()).encode())
        time.sleep(999)
    os._exit(0)
os.close(ready_w)
pid = os.read(ready_r, 32).decode()
os.waitpid(middle, 0)
print(pid, *(s.getsockname()[1] for s in listening))
`;

/** A loopback HTTP server that writes its pid and port to the path it is given, then serves. */
const RELABELLED_SERVER = `
import http.server, os, sys
server = http.server.HTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)
with open(sys.argv[1], 'w') as ready:
    ready.write(f'{os.getpid()} {server.server_address[1]}\\n')
server.serve_forever()
`;

function killQuietly(pid: number): void {
  if (pid <= 0) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

describe.runIf(process.platform === 'linux')('what an agent session leaves running', () => {
  it('lists nohup, setsid and double-forked jobs and a server\'s port, waits for the server to listen, and closes them all', async () => {
    const { id } = await mcp.ok('terminal_create');
    const gate = shells.gate();
    const started = await mcp.ok('terminal_run', {
      id,
      command:
        'nohup sleep 999 >/dev/null 2>&1 & setsid sleep 998 >/dev/null 2>&1 & ( setsid sleep 997 >/dev/null 2>&1 & ); ' +
        `(read -r _ < ${gate.path}; exec python3 -m http.server 0 --bind 127.0.0.1) >/dev/null 2>&1 &`,
    });
    expect(started).toMatchObject({ outcome: 'completed', exit_code: 0 });
    // The server waits on the gate, so nothing listens yet.
    expect(started.ports_opened).toBeUndefined();

    const waiting = mcp.ok('terminal_wait', { id, until: 'port', timeout_ms: 30_000 });
    gate.open();
    const waited = await waiting;
    expect(waited.reason).toBe('port');
    expect(waited.ports_opened).toEqual([{ port: expect.any(Number), address: '127.0.0.1', pid: expect.any(Number) }]);
    const { port } = waited.ports_opened[0];
    expect(await accepts(port, '127.0.0.1')).toBe(true);

    const listed = (await mcp.ok('terminal_list')).terminals.find((terminal: { id: string }) => terminal.id === id);
    expect(listed.ports).toEqual(waited.ports_opened);
    const jobs = ['sleep 999', 'sleep 998', 'sleep 997', 'python3 -m http.server 0 --bind 127.0.0.1'];
    expect(listed.background.map((proc: { command: string }) => proc.command)).toEqual(expect.arrayContaining(jobs));
    for (const proc of listed.background) expect(proc.started_at).toBeGreaterThan(Date.now() - 600_000);
    expect(carrying(id).length).toBeGreaterThanOrEqual(jobs.length + 1);

    const closed = await mcp.ok('terminal_close', { id });
    expect(closed.ended.map((proc: { command: string }) => proc.command)).toEqual(expect.arrayContaining(jobs));
    expect(closed.ports_freed).toEqual(waited.ports_opened);
    expect(closed.not_ended).toBeUndefined();
    expect(carrying(id)).toEqual([]);
    expect(await accepts(port, '127.0.0.1')).toBe(false);
  });

  it('reports the ports a daemon opened during terminal_run, over IPv4 and IPv6, and ends the daemon on close', async () => {
    const script = join(shells.dir, 'daemon.py');
    writeFileSync(script, DAEMON);
    const run = await mcp.ok('terminal_run', { command: `python3 ${script}` });
    expect(run).toMatchObject({ outcome: 'completed', exit_code: 0 });
    const [pid, port4, port6] = run.output.trim().split(' ').map(Number) as [number, number, number];
    const expected = [
      { port: port4, address: '127.0.0.1', pid },
      { port: port6, address: '::1', pid },
    ].sort((a, b) => a.port - b.port);
    expect(run.ports_opened).toEqual(expected);

    // A given port that listens ends the wait at once, reported before or not.
    const given = await mcp.ok('terminal_wait', { id: run.id, until: 'port', port: port6, timeout_ms: 30_000 });
    expect(given).toMatchObject({ reason: 'port', ports_opened: [{ port: port6, address: '::1', pid }] });
    const listed = (await mcp.ok('terminal_list')).terminals.find((terminal: { id: string }) => terminal.id === run.id);
    expect(listed.background).toEqual([{ pid, command: `python3 ${script}`, started_at: expect.any(Number) }]);

    const closed = await mcp.ok('terminal_close', { id: run.id });
    expect(closed.ended).toContainEqual({ pid, command: `python3 ${script}` });
    expect(closed.ports_freed).toEqual(expected);
    expect(carrying(run.id)).toEqual([]);
    expect(await accepts(port4, '127.0.0.1')).toBe(false);
  });

  it('lists what an exited shell left running, and ends it on close', async () => {
    const run = await mcp.ok('terminal_run', { command: 'setsid sleep 996 >/dev/null 2>&1 & exit' });
    expect(run.outcome).toBe('shell_exited');
    const listed = (await mcp.ok('terminal_list')).terminals.find((terminal: { id: string }) => terminal.id === run.id);
    expect(listed.state).toBe('exited');
    // "setsid sleep 996" until the forked child has exec'd sleep.
    const sleeper = listed.background.find((proc: { command: string }) => /sleep 996$/.test(proc.command));
    expect(sleeper).toEqual({ pid: expect.any(Number), command: expect.stringMatching(/sleep 996$/), started_at: expect.any(Number) });
    const closed = await mcp.ok('terminal_close', { id: run.id });
    expect(closed.ended).toContainEqual({ pid: sleeper.pid, command: expect.stringMatching(/sleep 996$/) });
    expect(carrying(run.id)).toEqual([]);
  });

  it("is found by the key it kept when it names the developer's session, listed, blamed and ended as the agent's own", async () => {
    const developer = shells.service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'] });
    const script = join(shells.dir, 'relabelled.py');
    writeFileSync(script, RELABELLED_SERVER);
    const ready = shells.gate().path;
    let pid = 0;
    try {
      // Issue 31.9: a server that claims the developer's tab and leaves the shell's tree and POSIX session at once.
      const run = await mcp.ok('terminal_run', {
        command: `PTYDECK_SESSION_ID=${developer.id} setsid -f python3 ${script} ${ready} </dev/null >/dev/null 2>&1; read -r pid port < ${ready}; echo "$pid $port"`,
      });
      const [started, port] = run.output.trim().split(' ').map(Number) as [number, number];
      pid = started;
      const listed = (await mcp.ok('terminal_list')).terminals.find((terminal: { id: string }) => terminal.id === run.id);
      expect(listed.background).toContainEqual({ pid, command: `python3 ${script} ${ready}`, started_at: expect.any(Number) });
      expect(listed.ports).toContainEqual({ port, address: '127.0.0.1', pid });
      // Told to the agent as its own server, not the developer's.
      const clash = await mcp.ok('terminal_run', { command: `python3 -m http.server ${port} --bind 127.0.0.1` });
      expect(clash.port_in_use).toEqual([{ port, pid, command: `python3 ${script} ${ready}`, session: run.id, owner: 'you' }]);
      await mcp.ok('terminal_close', { id: clash.id });

      const closed = await mcp.ok('terminal_close', { id: run.id, force: true });
      expect(closed.ended).toContainEqual({ pid, command: `python3 ${script} ${ready}` });
      expect(running(pid)).toBe(false);
    } finally {
      killQuietly(pid);
      await shells.service.remove(developer.id);
    }
  });

  it("ends what descended from the agent's shell whatever labels it forged, the developer's key included", async () => {
    const developer = shells.service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'] });
    const keyOf = () => (readOptional(`/proc/${developer.pid}/environ`) ?? '').split('\0').find((variable) => variable.startsWith('PTYDECK_SESSION_KEY='));
    // Once bash has exec'd: until then the environment is the forked host's.
    await until(() => keyOf() !== undefined, "the developer's shell runs");
    const key = keyOf()!;
    const ready = shells.gate().path;
    let pid = 0;
    try {
      // A POSIX session of its own, still below the shell (setsid -w waits for it), with the developer's labels copied from /proc.
      const run = await mcp.ok('terminal_run', {
        command: `PTYDECK_SESSION_ID=${developer.id} ${key} setsid -w sh -c 'echo $$ > ${ready}; exec sleep 994' </dev/null >/dev/null 2>&1 & read -r pid < ${ready}; echo "pid=$pid"`,
      });
      pid = Number(/pid=(\d+)/.exec(run.output)![1]);
      const listed = (await mcp.ok('terminal_list')).terminals.find((terminal: { id: string }) => terminal.id === run.id);
      expect(listed.background.map((proc: { pid: number }) => proc.pid)).toContain(pid);

      // Closing ends the shell's POSIX session; the sleep, in its own, goes to init, carrying the developer's labels.
      const closed = await mcp.ok('terminal_close', { id: run.id });
      expect(closed.ended.map((proc: { pid: number }) => proc.pid)).toContain(pid);
      expect(running(pid)).toBe(false);
    } finally {
      killQuietly(pid);
      await shells.service.remove(developer.id);
    }
  });

  it('a port wait sees a server that began listening while another socket closed, the count of TCP sockets as it was', async () => {
    // A socket of this process, open at the session's first look and closed before the server listens.
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { id } = await mcp.ok('terminal_create');
    await mcp.ok('terminal_run', { id, command: 'true' });
    await new Promise<void>((resolve) => other.close(() => resolve()));
    const script = join(shells.dir, 'count-neutral.py');
    writeFileSync(script, RELABELLED_SERVER);
    const ready = shells.gate().path;
    // The run's own result may miss the port (documented: results trust the count); a port wait may not.
    const run = await mcp.ok('terminal_run', { id, command: `python3 ${script} ${ready} >/dev/null 2>&1 & read -r pid port < ${ready}; echo "listening $pid $port"` });
    const [pid, port] = /listening (\d+) (\d+)/.exec(run.output)!.slice(1).map(Number) as [number, number];
    const expected = [{ port, address: '127.0.0.1', pid }];
    if (run.ports_opened === undefined) {
      // One look, now: reported as soon as the server listens, not once the count next moves.
      expect(await mcp.ok('terminal_wait', { id, until: 'port', timeout_ms: 0 })).toMatchObject({ reason: 'port', ports_opened: expected });
    } else {
      expect(run.ports_opened).toEqual(expected);
    }
    await mcp.ok('terminal_close', { id });
  });

  it('takes port only with until "port"', async () => {
    const { id } = await mcp.ok('terminal_create');
    const result = await mcp.call('terminal_wait', { id, until: 'idle', port: 8080 });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/port goes with until "port"/);
    await mcp.ok('terminal_close', { id });
  });
});
