import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AgentInfo, SessionInfo } from '@ptydeck/contract';
import { plantInStateDir } from '../packages/core/src/testing/lost-records.js';

/** Where the server process lives, for server-process.mjs. */
export interface ServerDirs {
  stateDir: string;
  home: string;
  configDir: string;
  appDir: string;
  /**
   * Sessions an earlier host kept: written into the state dir's session store before
   * the host starts (with the store on), which restores them (lost, or exited) before serving.
   */
  lost?: E2eLostRecord[];
  /** Keep sessions in the state dir's session store, as the host does, and restore what it holds at start. */
  persist?: boolean;
}

/** A LostRecord (core persist/lost-record.ts) as JSON can carry it: the saved output as text. */
export interface E2eLostRecord {
  info: SessionInfo;
  /** Absolute cursor of the text's first byte. */
  start: number;
  text: string;
  /** The old host's log end, past the text's end by what it had not written; null when unknown. */
  readEnd: number | null;
}

/**
 * The real host (startHost) in a Node process of its own, as `ptydeck serve` runs
 * it: the specs reach it as clients do (the panel URL, the agent token) and,
 * for what no client sees, through these calls (its diagnostics).
 */
export interface E2eServer {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  agentToken: string;
  panelToken: string;
  /** Where the server reads agents.json: a spec may rewrite it. */
  configDir: string;
  /** The panel URL with a fresh one-time ticket. */
  panelUrl(): Promise<string>;
  sessions(): Promise<SessionInfo[]>;
  session(id: string): Promise<SessionInfo | null>;
  /** One past the newest byte of a session's output. */
  logEnd(id: string): Promise<number>;
  /** MCP clients connected right now. */
  agents(): Promise<AgentInfo[]>;
  /** Sessions created since the server started, removed ones included. */
  created(): Promise<number>;
  /** A mark to count the PTY service's subscriptions from (each connected panel holds some). */
  markSubscriptions(): Promise<number>;
  /** Subscriptions to the PTY service made after `mark` and not yet undone. */
  liveSubscriptionsSince(mark: number): Promise<number>;
  /** With `persist`: resolves once the session store has written everything the sessions printed so far. */
  persisted(): Promise<void>;
  /** Stops serving and disposes the sessions; the process then waits to be ended. */
  close(): Promise<void>;
}

const SERVER_PROCESS = fileURLToPath(new URL('./server-process.mjs', import.meta.url));

interface Ready {
  type: 'ready';
  url: string;
  port: number;
  agentToken: string;
  panelToken: string;
}
type Reply = { id: number; result: unknown } | { id: number; error: string };

/** Starts the host's process; resolves once it serves. */
export async function startServerProcess(dirs: ServerDirs): Promise<{ server: E2eServer; stop(): Promise<void>; kill(): Promise<void> }> {
  const lost = dirs.lost ?? [];
  plantInStateDir(dirs.stateDir, lost);
  const options = { stateDir: dirs.stateDir, home: dirs.home, configDir: dirs.configDir, appDir: dirs.appDir, persist: (dirs.persist ?? false) || lost.length > 0 };
  // The host's own environment is what its sessions start from: the spec's HOME, never the machine's.
  const child = fork(SERVER_PROCESS, [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, HOME: dirs.home } });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const call of pending.values()) call.reject(new Error('the e2e server process exited'));
    pending.clear();
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`the e2e server process exited before serving (${signal ?? code})`)));
    child.on('message', (message: Ready | Reply) => {
      if ('type' in message) return resolve(message);
      const call = pending.get(message.id);
      pending.delete(message.id);
      if ('error' in message) call?.reject(new Error(message.error));
      else call?.resolve(message.result);
    });
  });
  const call = <T>(method: string, ...args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!child.connected) return reject(new Error('the e2e server process is gone'));
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, method, args });
    });
  const server: E2eServer = {
    url: ready.url,
    port: ready.port,
    agentToken: ready.agentToken,
    panelToken: ready.panelToken,
    configDir: dirs.configDir,
    panelUrl: () => call('panelUrl'),
    sessions: () => call('sessions'),
    session: (id) => call('session', id),
    logEnd: (id) => call('logEnd', id),
    agents: () => call('agents'),
    created: () => call('created'),
    markSubscriptions: () => call('markSubscriptions'),
    liveSubscriptionsSince: (mark) => call('liveSubscriptionsSince', mark),
    persisted: () => call('persisted'),
    close: () => call('close'),
  };
  return {
    server,
    /** SIGKILL, as a host is killed: nothing of it runs to close or flush anything. */
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        await server.close().catch(() => {});
        // Disconnecting tells the process to exit (server-process.mjs); SIGKILL if it does not.
        if (child.connected) child.disconnect();
        await Promise.race([exited, delay(5000).then(() => killed(child))]);
      }
      await exited;
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function killed(child: ChildProcess): void {
  child.kill('SIGKILL');
}
