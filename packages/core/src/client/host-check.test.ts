import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { checkHostProcess } from './host-check.js';

// The kernel's word on who listens on server.json's port: the host's own
// socket passes without reading the whole process table; anyone else's is named.
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function listenHere(): Promise<number> {
  const server: Server = createServer();
  cleanups.push(() => server.close());
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

/** A process of this user, outside any session, listening on a port it prints. */
function listenElsewhere(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port))"], {
    env: isolatedEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => child.kill('SIGKILL'));
  return new Promise((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve({ child, port: Number(chunk.toString().trim()) })));
}

describe.runIf(process.platform === 'linux')('checkHostProcess', () => {
  const stateDir = () => fileTempDir('ptydeck-host-check-');

  it('trusts the process server.json names when it holds the socket listening on the port', async () => {
    const port = await listenHere();
    expect(checkHostProcess({ url: `http://127.0.0.1:${port}`, pid: process.pid }, stateDir())).toEqual({ kind: 'trusted', pid: process.pid });
  });

  it('refuses when another process listens on the port server.json names, and names it', async () => {
    const { child, port } = await listenElsewhere();
    const check = checkHostProcess({ url: `http://127.0.0.1:${port}`, pid: process.pid }, stateDir());
    expect(check).toMatchObject({ kind: 'refused' });
    expect((check as { reason: string }).reason).toContain(`process ${child.pid} listens on port ${port}`);
  });

  // server.json is the agent's to rewrite: its url may keep the host's port and name another address, where the
  // connection goes to whoever listens there (another user's socket, another machine), not to the host.
  it('refuses a url that names the host\'s port at an address where the host does not listen', async () => {
    const port = await listenHere();
    for (const address of ['127.0.0.2', '[::1]', '192.0.2.1']) {
      const check = checkHostProcess({ url: `http://${address}:${port}`, pid: process.pid }, stateDir());
      expect(check, address).toMatchObject({ kind: 'refused' });
      expect((check as { reason: string }).reason, address).toContain(
        `server.json names ${address.replace(/^\[(.*)\]$/, '$1')} port ${port}, where the host (pid ${process.pid}) does not listen (it listens at 127.0.0.1)`,
      );
    }
  });

  it('refuses a url that names the host by a name other than localhost, which a resolver, not the kernel, would answer', async () => {
    const port = await listenHere();
    const check = checkHostProcess({ url: `http://attacker.example:${port}`, pid: process.pid }, stateDir());
    expect(check).toMatchObject({ kind: 'refused' });
    expect((check as { reason: string }).reason).toContain('server.json names the host attacker.example, not an IP address');
    expect(checkHostProcess({ url: `http://localhost:${port}`, pid: process.pid }, stateDir())).toEqual({ kind: 'trusted', pid: process.pid });
  });

  it('trusts a host listening on every address for a url naming the loopback', async () => {
    const server: Server = createServer();
    cleanups.push(() => server.close());
    const port = await new Promise<number>((resolve) => server.listen(0, '0.0.0.0', () => resolve((server.address() as { port: number }).port)));
    expect(checkHostProcess({ url: `http://127.0.0.1:${port}`, pid: process.pid }, stateDir())).toEqual({ kind: 'trusted', pid: process.pid });
  });

  it('calls a port nobody listens on absent', async () => {
    const port = await listenHere();
    cleanups.splice(0).forEach((cleanup) => cleanup());
    expect(checkHostProcess({ url: `http://127.0.0.1:${port}`, pid: process.pid }, stateDir())).toMatchObject({ kind: 'absent' });
  });
});

describe('a child of the host between fork and exec', () => {
  it('holds a copy of the host\'s socket, and the host is trusted all the same', async () => {
    const server: Server = createServer();
    cleanups.push(() => server.close());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
    // What a spawning host's child is until its exec closes the copy: here it keeps it.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'ignore', 'ignore', fd] });
    cleanups.push(() => child.kill('SIGKILL'));
    await new Promise((resolve) => child.once('spawn', resolve));
    const stateDir = fileTempDir('ptydeck-host-check-fork-');
    expect(checkHostProcess({ url: `http://127.0.0.1:${port}`, pid: process.pid }, stateDir)).toMatchObject({ kind: 'trusted', pid: process.pid });
  });
});
