// A remote session's port, reachable on this machine's loopback through `ssh -N -L`, for the panel's port chip.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import type { ListeningPort } from '@ptydeck/contract';
import type { RemoteEntry } from './remotes-config.js';
import { SSH_PROGRAM_ENV, sshEnv } from './ssh-launch.js';
import { freeLoopbackPort } from '../common/free-port.js';
import { descendsFrom, pidsHoldingSocket } from '../common/peer-process.js';
import { listeningSockets } from '../proc/tcp-table.js';

const READY_TIMEOUT_MS = 15_000;
const READY_POLL_MS = 50;

export interface PortForward {
  /** http://127.0.0.1:<local port>/ */
  url: string;
  localPort: number;
  /** Ends ssh: the local port closes. */
  close(): void;
  /** Settles when ssh has exited (closed, killed, or the link dropped). */
  readonly ended: Promise<void>;
}

/** Where ssh connects on the remote for a listener's address: a wildcard is reached on loopback. */
function targetHost(address: string): string {
  if (address === '0.0.0.0' || address === '::' || address === '') return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * Forwards a free port on this machine's 127.0.0.1 (never another interface)
 * to the port the remote process listens on. Its own ssh: the panel channel's
 * is run with ClearAllForwardings, and its life is the session's, not the
 * forward's. Resolves once the local port accepts connections.
 */
export async function startPortForward(remote: RemoteEntry, listening: Pick<ListeningPort, 'address' | 'port'>, env: Record<string, string | undefined> = process.env): Promise<PortForward> {
  const localPort = await freeLoopbackPort();
  const args = [
    '-N',
    '-T',
    '-a',
    '-x',
    '-o', 'ExitOnForwardFailure=yes',
    '-o', 'BatchMode=yes',
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=3',
    '-o', 'ConnectTimeout=10',
    '-L', `127.0.0.1:${localPort}:${targetHost(listening.address)}:${listening.port}`,
    '--',
    remote.destination,
  ];
  const child: ChildProcess = spawn(env[SSH_PROGRAM_ENV] || 'ssh', args, { stdio: ['ignore', 'ignore', 'pipe'], env: sshEnv(env) });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const ended = new Promise<void>((resolve) => {
    child.once('error', () => resolve());
    child.once('close', () => resolve());
  });
  let exited = false;
  void ended.then(() => (exited = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  // ssh says nothing when its listener is up: the port accepting a connection is the sign.
  while (!(await accepts(localPort))) {
    if (exited || Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`could not forward port ${listening.port} from ${remote.name}: ${stderr.trim() || (exited ? 'ssh exited' : 'ssh did not open the local port in time')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  // The port was free when picked, and ssh took it later: another local process may have taken it in
  // between, and the browser would be sent to that one. The kernel says who holds what listens there.
  const holder = listenerProblem(localPort, child.pid);
  if (holder) {
    child.kill('SIGTERM');
    throw new Error(`could not forward port ${listening.port} from ${remote.name}: ${holder}`);
  }
  return {
    url: `http://127.0.0.1:${localPort}/`,
    localPort,
    ended,
    close: () => {
      if (!exited) child.kill('SIGTERM');
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Why what listens on 127.0.0.1:`port` is not `ssh` alone (its pid), or undefined when it is, or when
 * the system cannot say (no /proc): a socket there held by any other process means the port was taken
 * before ssh took it.
 */
export function listenerProblem(port: number, ssh: number | undefined): string | undefined {
  const sockets = listeningSockets();
  if (!sockets) return undefined;
  const inodes = new Set([...sockets].filter(([, socket]) => socket.port === port && (socket.address === '127.0.0.1' || socket.address === '0.0.0.0')).map(([inode]) => inode));
  if (inodes.size === 0) return `nothing listens on local port ${port}`;
  const holders = [...new Set([...inodes].flatMap(pidsHoldingSocket))];
  // The ssh program may be a wrapper (PTYDECK_SSH) whose child is ssh itself.
  const ours = (pid: number) => ssh !== undefined && descendsFrom(pid, ssh);
  const stranger = holders.find((pid) => !ours(pid));
  if (stranger !== undefined) return `local port ${port} is held by process ${stranger}, not by the ssh forwarding it (another process took the port first)`;
  if (holders.length === 0) return `local port ${port} is not held by the ssh forwarding it`;
  return undefined;
}
