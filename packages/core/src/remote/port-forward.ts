// A remote session's port, reachable on this machine's loopback through the remote's shared ssh connection (or an `ssh -N -L`), for the panel's port chip.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import type { ListeningPort } from '@ptydeck/contract';
import type { RemoteEntry } from './remotes-config.js';
import { remoteControlPath, sshCommand } from './ssh-launch.js';
import { freeLoopbackPort } from '../common/free-port.js';
import { isProcessAlive } from '../common/process-identity.js';
import { descendsFrom, pidsHoldingSocket } from '../common/peer-process.js';
import { listeningSockets, reachableHost } from '../proc/tcp-table.js';

const READY_TIMEOUT_MS = 15_000;
const READY_POLL_MS = 50;
/** How often a forward held by a shared master checks that the master still runs (it is not our child: no exit event). */
const MASTER_POLL_MS = 2000;

export interface PortForward {
  /** http://127.0.0.1:<local port>/ */
  url: string;
  localPort: number;
  /** Ends ssh: the local port closes. */
  close(): void;
  /** Settles when ssh has exited (closed, killed, or the link dropped). */
  readonly ended: Promise<void>;
}

/**
 * Forwards a free port on this machine's 127.0.0.1 (never another interface)
 * to the port the remote process listens on. Through the remote's shared ssh
 * connection when it has one (`ssh -O forward`, undone by `-O cancel`: no
 * new connection); else its own `ssh -N -L`, since the panel channel's is run
 * with ClearAllForwardings. Resolves once the local port accepts connections
 * and the kernel says the forwarding ssh alone holds it.
 */
export async function startPortForward(
  remote: RemoteEntry,
  listening: Pick<ListeningPort, 'address' | 'port'>,
  env: Record<string, string | undefined> = process.env,
  stateDir?: string,
): Promise<PortForward> {
  const localPort = await freeLoopbackPort();
  const spec = `127.0.0.1:${localPort}:${reachableHost(listening.address)}:${listening.port}`;
  const shared = remoteControlPath(remote, { env, ...(stateDir ? { stateDir } : {}) });
  const master = shared ? await masterPid(remote, shared, env) : undefined;
  if (shared && master !== undefined) return forwardThroughMaster(remote, listening, env, { path: shared, pid: master, spec, localPort });
  return forwardOnItsOwn(remote, listening, env, spec, localPort);
}

/** The pid of the master ssh behind `path`, or undefined when none runs there. */
async function masterPid(remote: RemoteEntry, path: string, env: Record<string, string | undefined>): Promise<number | undefined> {
  const { code, stderr } = await control(remote, path, env, ['-O', 'check']);
  const pid = /\(pid=(\d+)\)/.exec(stderr)?.[1];
  return code === 0 && pid ? Number(pid) : undefined;
}

/** Runs `ssh -O <command>` against the master at `path`. */
function control(remote: RemoteEntry, path: string, env: Record<string, string | undefined>, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const ssh = sshCommand(env, ['-o', `ControlPath=${path}`, '-o', 'BatchMode=yes', ...args, '--', remote.destination]);
    execFile(ssh.command, ssh.args, { env: ssh.env, timeout: READY_TIMEOUT_MS }, (error, _stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr: String(stderr) }),
    );
  });
}

async function forwardThroughMaster(
  remote: RemoteEntry,
  listening: Pick<ListeningPort, 'port'>,
  env: Record<string, string | undefined>,
  { path, pid, spec, localPort }: { path: string; pid: number; spec: string; localPort: number },
): Promise<PortForward> {
  const made = await control(remote, path, env, ['-O', 'forward', '-L', spec]);
  const cancel = () => void control(remote, path, env, ['-O', 'cancel', '-L', spec]);
  if (made.code !== 0) throw new Error(`could not forward port ${listening.port} from ${remote.name}: ${made.stderr.trim() || 'ssh refused the forward'}`);
  // The master answers once it listens; the port was free when picked, and the kernel says who took it.
  const holder = listenerProblem(localPort, pid);
  if (holder) {
    cancel();
    throw new Error(`could not forward port ${listening.port} from ${remote.name}: ${holder}`);
  }
  let done: () => void = () => {};
  const ended = new Promise<void>((resolve) => (done = resolve));
  // The forward lives as long as the master: gone with it (the link dropped), the next click makes a new one.
  const watch = setInterval(() => {
    if (!isProcessAlive(pid)) finish();
  }, MASTER_POLL_MS);
  watch.unref();
  let over = false;
  const finish = () => {
    if (over) return;
    over = true;
    clearInterval(watch);
    done();
  };
  return {
    url: `http://127.0.0.1:${localPort}/`,
    localPort,
    ended,
    close: () => {
      if (over) return;
      cancel();
      finish();
    },
  };
}

/** The forward in an ssh of its own (no shared connection to the remote). */
async function forwardOnItsOwn(remote: RemoteEntry, listening: Pick<ListeningPort, 'address' | 'port'>, env: Record<string, string | undefined>, spec: string, localPort: number): Promise<PortForward> {
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
    '-o', 'ControlMaster=no',
    '-o', 'ControlPath=none',
    '-L', spec,
    '--',
    remote.destination,
  ];
  const ssh = sshCommand(env, args);
  const child: ChildProcess = spawn(ssh.command, ssh.args, { stdio: ['ignore', 'ignore', 'pipe'], env: ssh.env });
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
