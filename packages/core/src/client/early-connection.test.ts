import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, Socket, type Server } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { writeDiscovery } from '../common/discovery.js';
import { buildCore, hostSandbox, runCli } from '../testing/host-sandbox.js';
import { until } from '../testing/poll-until.js';
import { connectEarly, dropEarlyConnection, takeEarlyConnection } from './early-connection.js';
import { RawTcpSocket } from './raw-tcp.js';

beforeAll(buildCore, 120_000);

/** A plain TCP listener: what each connection wrote, and its close (half-open, so the client's FIN is seen as such). */
async function listener(): Promise<{ port: number; connections: Array<{ bytes: string; ended: boolean }> }> {
  const connections: Array<{ bytes: string; ended: boolean }> = [];
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.push(socket);
    const seen = { bytes: '', ended: false };
    connections.push(seen);
    socket.on('data', (chunk) => (seen.bytes += chunk.toString('latin1')));
    socket.on('end', () => (seen.ended = true));
    socket.on('close', () => (seen.ended = true));
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, connections };
}

const servers: Server[] = [];
const sockets: Socket[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  dropEarlyConnection();
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

describe('the early connection', () => {
  it('is taken once, by a request to its own address while it is still connecting', async () => {
    const { port } = await listener();
    const box = hostSandbox();
    writeDiscovery({ url: `http://127.0.0.1:${port}`, token: 'token', pid: process.pid, instance: 'test', protocol: HOST_PROTOCOL_VERSION }, box.stateDir);
    connectEarly(box.stateDir);
    expect(takeEarlyConnection(port + 1, '127.0.0.1')).toBeUndefined();
    connectEarly(box.stateDir);
    const socket = takeEarlyConnection(port, '127.0.0.1');
    expect(socket?.connecting).toBe(true);
    expect(takeEarlyConnection(port, '127.0.0.1')).toBeUndefined();
    socket!.destroy();
  });

  it('is opened on Node\'s TCP binding when asked to, and taken as any other', async () => {
    const { port } = await listener();
    const box = hostSandbox();
    writeDiscovery({ url: `http://127.0.0.1:${port}`, token: 'token', pid: process.pid, instance: 'test', protocol: HOST_PROTOCOL_VERSION }, box.stateDir);
    connectEarly(box.stateDir, true);
    const socket = takeEarlyConnection(port, '127.0.0.1');
    expect(socket).toBeInstanceOf(RawTcpSocket);
    expect(socket?.connecting).toBe(true);
    socket!.destroy();
    connectEarly(box.stateDir);
    const net = takeEarlyConnection(port, '127.0.0.1');
    expect(net).toBeInstanceOf(Socket);
    net!.destroy();
  });

  it('is not opened where server.json names no live host, and a bad state directory throws nothing', () => {
    const box = hostSandbox();
    expect(() => connectEarly(box.stateDir)).not.toThrow();
    expect(takeEarlyConnection(80, '127.0.0.1')).toBeUndefined();
    expect(() => connectEarly('/nonexistent/ptydeck-state')).not.toThrow();
    expect(takeEarlyConnection(80, '127.0.0.1')).toBeUndefined();
  });

  it('is opened only to a loopback address: before the check, a rewritten server.json may name any other', () => {
    const box = hostSandbox();
    for (const host of ['192.0.2.1', 'attacker.example', '[2001:db8::1]']) {
      writeDiscovery({ url: `http://${host}:8080`, token: 'token', pid: process.pid, instance: 'test', protocol: HOST_PROTOCOL_VERSION }, box.stateDir);
      connectEarly(box.stateDir);
      expect(takeEarlyConnection(8080, host.replace(/^\[(.*)\]$/, '$1')), host).toBeUndefined();
    }
    for (const host of ['127.0.0.2', '[::1]']) {
      writeDiscovery({ url: `http://${host}:8080`, token: 'token', pid: process.pid, instance: 'test', protocol: HOST_PROTOCOL_VERSION }, box.stateDir);
      connectEarly(box.stateDir);
      const socket = takeEarlyConnection(8080, host.replace(/^\[(.*)\]$/, '$1'));
      expect(socket, host).toBeDefined();
      socket!.destroy();
    }
  });

  it('opens before the kernel check of the listener, and a listener the check refuses sees it close with not a byte', async () => {
    const { port, connections } = await listener();
    // server.json names a live process that is not the one listening: the kernel's check refuses the listener.
    const named = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(named);
    const box = hostSandbox();
    writeDiscovery({ url: `http://127.0.0.1:${port}`, token: 'token', pid: named.pid!, instance: 'test', protocol: HOST_PROTOCOL_VERSION }, box.stateDir);
    for (const command of ['ls', 'url']) {
      const before = connections.length;
      const run = await runCli(box, [command]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(`listens on port ${port}`);
      // The listener hears of the connection on its own loop's turn, which may come after the command's exit.
      await until(() => connections.length === before + 1 && connections[before]!.ended, `${command}'s connection, closed`);
      expect(connections, command).toHaveLength(before + 1);
      expect(connections[before]!.bytes, command).toBe('');
    }
  });
});
