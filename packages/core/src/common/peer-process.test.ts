import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { namespacePids, readStat } from '../proc/proc-fs.js';
import { buildCore } from '../testing/host-sandbox.js';
import { judgePeerFromProc } from './peer-process.js';

/** A PID namespace of its own (and a user namespace, so no root is needed), as a container or `unshare -p` gives one. */
const UNSHARE = ['--user', '--map-current-user', '--pid', '--fork', '--kill-child'];
const unshareWorks = process.platform === 'linux' && spawnSync('unshare', [...UNSHARE, 'true']).status === 0;

const children: ChildProcess[] = [];
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise<void>((done) => server.close(() => done()));
});

/** The client connects, names itself by its own process.pid (as ptydeck's clients do), and holds the connection until killed. */
const CLIENT = `const socket = require('node:net').connect(Number(process.argv[1]), '127.0.0.1', () => socket.write(process.pid + '\\n'));`;

/**
 * A client started inside a PID namespace of its own, connected to a server in this process: the
 * server's end of the connection, the pid the client names itself by, and the unshare process above it.
 */
async function namespacedClient(): Promise<{ socket: Socket; claimed: number; unshare: ChildProcess }> {
  const connected = new Promise<Socket>((resolve) => {
    const server = createServer(resolve);
    servers.push(server);
    server.listen(0, '127.0.0.1', () => {
      const unshare = spawn('unshare', [...UNSHARE, process.execPath, '-e', CLIENT, String((server.address() as { port: number }).port)], { stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(unshare);
    });
  });
  const socket = await connected;
  sockets.push(socket);
  // Read without an async iterator, whose break would close the connection.
  const line = await new Promise<string>((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (!text.includes('\n')) return;
      socket.off('data', onData);
      resolve(text.trim());
    };
    socket.on('data', onData);
  });
  return { socket, claimed: Number(line), unshare: children.at(-1)! };
}

function peerOf(socket: Socket) {
  return { remoteAddress: socket.remoteAddress, remotePort: socket.remotePort, localAddress: socket.localAddress, localPort: socket.localPort };
}

describe.runIf(unshareWorks)('the peer judge, asked by a client in a PID namespace of its own', () => {
  it('takes the pid the client names itself by once the kernel says a holder of the connection has that pid in its own namespace, and judges that holder by its pid here', async () => {
    const { socket, claimed, unshare } = await namespacedClient();
    // The client's pid is not its pid here: the kernel says process `claimed` (if any) holds no such socket.
    const verdict = judgePeerFromProc(peerOf(socket), new Set(), claimed);
    expect(verdict).toEqual({ kind: 'outside', pids: [expect.any(Number)] });
    const [holder] = (verdict as { pids: number[] }).pids;
    expect(holder).not.toBe(claimed);
    expect(namespacePids(holder!)).toEqual([holder, claimed]);
    expect(readStat(holder!)?.ppid).toBe(unshare.pid);
  });

  it('still refuses it when it runs inside a session (here: below a process the judge is told is one)', async () => {
    const { socket, claimed, unshare } = await namespacedClient();
    const verdict = judgePeerFromProc(peerOf(socket), new Set([unshare.pid!]), claimed);
    expect(verdict).toEqual({ kind: 'refused', reason: `process ${unshare.pid} is a process ptydeck started for a session or a chat` });
  });

  it('refuses a claim that is no holder in any namespace, and says which processes hold the connection', async () => {
    const { socket, claimed } = await namespacedClient();
    const wrong = claimed + 1;
    const verdict = judgePeerFromProc(peerOf(socket), new Set(), wrong);
    expect(verdict.kind).toBe('refused');
    expect((verdict as { reason: string }).reason).toMatch(
      new RegExp(`^process ${wrong}, which the request names as its sender, does not hold the connection: the kernel names process \\d+ as holding it, and none is process ${wrong} in a PID namespace of its own$`),
    );
  });
});

describe.runIf(unshareWorks)('the peer judge, in a PID namespace of its own, asked by a client outside it', () => {
  beforeAll(buildCore, 120_000);

  it('refuses the claim, and says a PID namespace may hide the sender: its /proc shows no process holding the connection', async () => {
    // A host in a container of its own (its own /proc), judging with the built module, as a host runs it.
    const judge = JSON.stringify(fileURLToPath(new URL('../../dist/common/peer-process.js', import.meta.url)));
    const host = `
      const { judgePeerFromProc } = await import(${judge});
      const server = (await import('node:net')).createServer((socket) => socket.once('data', (line) => {
        const verdict = judgePeerFromProc({ remoteAddress: socket.remoteAddress, remotePort: socket.remotePort, localAddress: socket.localAddress, localPort: socket.localPort }, new Set(), Number(String(line).trim()));
        socket.end(JSON.stringify(verdict) + '\\n');
      }));
      server.listen(0, '127.0.0.1', () => console.log(server.address().port));
    `;
    const child = spawn('unshare', [...UNSHARE, '--mount-proc', process.execPath, '--input-type=module', '-e', host], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    const socket = (await import('node:net')).connect(port, '127.0.0.1', () => socket.write(`${process.pid}\n`));
    sockets.push(socket);
    let answer = '';
    for await (const chunk of socket) answer += String(chunk);
    expect(JSON.parse(answer)).toEqual({
      kind: 'refused',
      reason: `process ${process.pid}, which the request names as its sender, does not hold the connection, and no process whose descriptors this host can read does: the sender may run in a PID namespace this host's /proc does not show (a host inside a container, asked from outside it), where its pid cannot be verified`,
    });
  });
});
