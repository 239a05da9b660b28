import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForOutput } from '../testing/session-waits.js';
import { namedPorts } from './port-in-use.js';
import { connectMcp, type McpCaller } from '../testing/mcp-client.js';
import { useRealShells } from '../testing/real-shells.js';

/**
 * A command that fails on a taken port is told who holds it, from the
 * kernel's tables, through the official MCP SDK client (which checks each
 * result against its output schema): the caller's own server in full,
 * another agent's or the developer's by owner only, one outside ptydeck by
 * pid and command. Real servers; Linux only, like the tracking.
 */

const owner = { id: 'conn-port-in-use' };
const OTHER = 'conn-port-in-use-other-agent';
const shells = useRealShells('port-in-use', owner);
let mine: McpCaller;
let other: McpCaller;
let outside: Server | undefined;

beforeAll(async () => {
  mine = await connectMcp(shells.tool, owner.id);
  other = await connectMcp(shells.tool, OTHER);
});

afterAll(async () => {
  await mine.close();
  await other.close();
  await shells.tool.closeOwner(OTHER);
  outside?.close();
});

/** A Python server on a port the kernel picks, started by `agent`, ready once the kernel says it listens. */
async function serve(agent: McpCaller): Promise<{ id: string; port: number; pid: number }> {
  const gate = shells.gate();
  const run = await agent.ok('terminal_run', { command: `(read -r _ < ${gate.path}; exec python3 -m http.server 0 --bind 127.0.0.1) >/dev/null 2>&1 &` });
  const waiting = agent.ok('terminal_wait', { id: run.id, until: 'port', timeout_ms: 30_000 });
  gate.open();
  const [listening] = (await waiting).ports_opened;
  return { id: run.id, port: listening.port, pid: listening.pid };
}

const second = (port: number) => `python3 -m http.server ${port} --bind 127.0.0.1`;

describe.runIf(process.platform === 'linux')('who holds a port a command found taken', () => {
  it("names the caller's own server with its pid, command and terminal, in run and wait results", async () => {
    const server = await serve(mine);
    const expected = [{ port: server.port, pid: server.pid, command: 'python3 -m http.server 0 --bind 127.0.0.1', session: server.id, owner: 'you' }];

    // Python's message names no port: the command line does, and the kernel says it is taken.
    const python = await mine.call('terminal_run', { command: second(server.port) });
    expect(python.structuredContent).toMatchObject({ outcome: 'completed', exit_code: 1, port_in_use: expected });
    expect(python.content[0]?.text).toContain(`Port ${server.port} is already in use, held by pid ${server.pid} (python3 -m http.server 0 --bind 127.0.0.1) in your terminal ${server.id}`);

    // Node's names the port itself; here it reaches the agent through terminal_wait.
    const gate = shells.gate();
    const script = `require('net').createServer().listen(Number(require('fs').readFileSync(0, 'utf8')), '127.0.0.1')`;
    const started = await mine.ok('terminal_run', { command: `read -r _ < ${gate.path}; node -e "${script}" < ${shells.dir}/port`, timeout_ms: 200 });
    expect(started.outcome).toBe('running');
    writeFileSync(`${shells.dir}/port`, String(server.port));
    gate.open();
    const node = await mine.ok('terminal_wait', { id: started.id, until: 'exit', timeout_ms: 30_000 });
    expect(node.output).toContain('EADDRINUSE');
    expect(node).toMatchObject({ reason: 'exit', exit_code: 1, port_in_use: expected });
  });

  it("names another agent's server by its owner only", async () => {
    const server = await serve(other);
    const clash = await mine.call('terminal_run', { command: second(server.port) });
    expect(clash.structuredContent?.port_in_use).toEqual([{ port: server.port, pid: null, command: null, session: null, owner: OTHER }]);
    expect(clash.content[0]?.text).toContain(`Port ${server.port} is already in use, held by a process in a terminal of ${OTHER} (not yours)`);
    expect(JSON.stringify(clash)).not.toContain(server.id);
  });

  it("names the developer's server by its owner only", async () => {
    const gate = shells.gate();
    const tab = shells.service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile', '-c', `read -r _ < ${gate.path}; exec python3 -m http.server 0 --bind 127.0.0.1`] });
    try {
      gate.open();
      const port = Number(/port (\d+)/.exec(await waitForOutput(shells.service, tab.id, /port \d+/))![1]);
      const clash = await mine.ok('terminal_run', { command: second(port) });
      expect(clash.port_in_use).toEqual([{ port, pid: null, command: null, session: null, owner: 'the developer' }]);
    } finally {
      await shells.service.remove(tab.id);
    }
  });

  it('names a listener outside ptydeck by its pid and command', async () => {
    outside = createServer();
    await new Promise<void>((resolve) => outside!.listen(0, '127.0.0.1', resolve));
    const { port } = outside.address() as { port: number };
    const clash = await mine.ok('terminal_run', { command: second(port) });
    expect(clash.port_in_use).toEqual([{ port, pid: process.pid, command: expect.any(String), session: null, owner: 'outside ptydeck' }]);
  });

  it('says nothing of ports when a command fails otherwise', async () => {
    const run = await mine.ok('terminal_run', { command: 'echo "no port 8 here"; false' });
    expect(run.port_in_use).toBeUndefined();
  });
});

describe('the port a failure names', () => {
  it.each([
    ['Node', 'Error: listen EADDRINUSE: address already in use :::3000', 3000],
    ['Node on an address', 'Error: listen EADDRINUSE: address already in use 127.0.0.1:8080', 8080],
    ['Go', '2026/12/04 07:30:01 listen tcp :8081: bind: address already in use', 8081],
    ['Vite', 'error when starting dev server:\nError: Port 5173 is already in use', 5173],
    ['Next', ' ⨯ Failed to start server\nError: listen EADDRINUSE: address already in use :::3001', 3001],
    ['Flask', 'Address already in use\nPort 5000 is in use by another program.', 5000],
    ['uvicorn', "ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 8000): address already in use", 8000],
    ['Puma', 'Address already in use - bind(2) for "127.0.0.1" port 3002 (Errno::EADDRINUSE)', 3002],
  ])('%s', (_, output, port) => {
    expect(namedPorts(output, undefined)).toContain(port);
  });

  it("takes the command's numbers only when the failure names no port (Python)", () => {
    expect(namedPorts('OSError: [Errno 98] Address already in use', 'python3 -m http.server 8000 --bind 127.0.0.1')).toEqual([8000]);
    expect(namedPorts('Error: listen EADDRINUSE: address already in use :::3000', 'PORT=4000 node server.js')).toEqual([3000]);
  });
});
