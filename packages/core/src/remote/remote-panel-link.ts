// One remote's panel protocol through ssh (`ptydeck panel-channel` there), reconnecting with backoff when the link drops.
import type { ChildProcess } from 'node:child_process';
import { decodeOutputFrame, Emitter, PanelServerMessage, parseJsonAs, type OnEvent, type PanelClientMessage, type RemoteHostState } from '@ptydeck/contract';
import { ChannelKind, ChannelReader, ChannelWriter } from './channel-frames.js';
import type { RemoteEntry } from './remotes-config.js';
import { RemoteVerdict, spawnRemote } from './ssh-launch.js';

const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5000;

type Snapshot = Extract<PanelServerMessage, { type: 'snapshot' }>;

/** An output frame as the remote sent it: its bytes to pass on as they are, and what its header says. */
export interface RelayedFrame {
  id: string;
  /** The absolute cursor of the payload's first byte. */
  cursor: number;
  /** The cursor one past its last byte. */
  next: number;
  bytes: Uint8Array;
}

export interface RemotePanelLinkOptions {
  /** The environment ssh is started from (PTYDECK_SSH, SSH_AUTH_SOCK, HOME). Default process.env. */
  env?: Record<string, string | undefined>;
  /** Lines ssh or the remote ptydeck wrote on stderr, for the host's log. */
  log?: (line: string) => void;
  /** ptydeck's state directory, where the shared ssh connections' control sockets are (default: the one env names). */
  stateDir?: string;
}

/**
 * The remote's panel protocol, as one panel of this machine's host sees it:
 * each connection starts with the remote's snapshot (onSnapshot), then its
 * messages and output frames. When ssh ends it says why (onState) and starts
 * again with backoff, for as long as it is not closed; only a remote that
 * cannot run this (no ptydeck there, another version) is given up on.
 */
export class RemotePanelLink {
  private readonly stateEmitter = new Emitter<{ state: RemoteHostState; detail: string | null }>({ name: 'remote link state' });
  private readonly snapshotEmitter = new Emitter<Snapshot>({ name: 'remote snapshot' });
  private readonly messageEmitter = new Emitter<PanelServerMessage>({ name: 'remote message' });
  private readonly frameEmitter = new Emitter<RelayedFrame>({ name: 'remote frame' });
  readonly onState: OnEvent<{ state: RemoteHostState; detail: string | null }> = this.stateEmitter.on;
  /** A connection began: everything the remote knows now. */
  readonly onSnapshot: OnEvent<Snapshot> = this.snapshotEmitter.on;
  readonly onMessage: OnEvent<PanelServerMessage> = this.messageEmitter.on;
  readonly onFrame: OnEvent<RelayedFrame> = this.frameEmitter.on;

  private child: ChildProcess | undefined;
  /** The current connection's writer: a turn's messages (an input and an ack, the attaches of a resume) go to ssh in one write. */
  private writer: ChannelWriter | undefined;
  private connected = false;
  /** Whether any connection got as far as the remote's snapshot: until then a failed one is not a drop, and no session of its is known here. */
  private everConnected = false;
  private closed = false;
  private delay = BACKOFF_FIRST_MS;
  private retry: NodeJS.Timeout | undefined;
  private current: { state: RemoteHostState; detail: string | null } = { state: 'connecting', detail: null };

  constructor(
    readonly remote: RemoteEntry,
    private readonly options: RemotePanelLinkOptions = {},
  ) {
    this.start();
  }

  /** The environment ssh runs with, for the port forwards made beside this link. */
  get env(): Record<string, string | undefined> {
    return this.options.env ?? process.env;
  }

  /** The state directory this link's ssh shares its connection through, for the port forwards. */
  get stateDir(): string | undefined {
    return this.options.stateDir;
  }

  get state(): { state: RemoteHostState; detail: string | null } {
    return this.current;
  }

  /** Whether messages sent now reach the remote (its snapshot came on this connection). */
  get up(): boolean {
    return this.connected;
  }

  /** Sends a panel message; false (dropped) while the link is not up. */
  send(message: PanelClientMessage): boolean {
    if (!this.connected || !this.child?.stdin?.writable || !this.writer) return false;
    this.writer.write(ChannelKind.Text, JSON.stringify(message));
    return true;
  }

  /** The ssh process of the current connection, for tests that cut the link. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retry);
    const child = this.child;
    this.child = undefined;
    this.connected = false;
    if (child) {
      // Its stdin's end ends the remote channel (and its panel socket there); ssh then exits. SIGTERM if not soon.
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGTERM'), 2000);
      timer.unref();
      child.once('close', () => clearTimeout(timer));
    }
    for (const emitter of [this.stateEmitter, this.snapshotEmitter, this.messageEmitter, this.frameEmitter]) emitter.clear();
  }

  private setState(state: RemoteHostState, detail: string | null): void {
    this.current = { state, detail };
    this.stateEmitter.fire(this.current);
  }

  private start(): void {
    if (this.closed) return;
    let lastError: string | undefined;
    const verdict = new RemoteVerdict(this.remote, (line) => {
      lastError = line;
      this.options.log?.(`remote ${this.remote.name}: ${line}`);
    });
    // BatchMode: no one can answer a password prompt in the host's stdio; keys and an agent work.
    const child = spawnRemote(this.remote, ['panel-channel'], { batch: true, ...(this.options.env ? { env: this.options.env } : {}), ...(this.options.stateDir ? { stateDir: this.options.stateDir } : {}) });
    this.child = child;
    // A batch queued before the connection went is dropped with it: writes to a dead ssh go nowhere.
    this.writer = new ChannelWriter((batch) => (this.child === child && child.stdin!.writable ? child.stdin!.write(batch) : true));
    let first = true;
    const reader = new ChannelReader((kind, payload) => {
      if (this.child !== child) return;
      if (kind === ChannelKind.Binary) {
        let frame;
        try {
          frame = decodeOutputFrame(payload);
        } catch {
          return; // The remote's bug; its next resync repairs the screen.
        }
        this.frameEmitter.fire({ id: frame.id, cursor: frame.cursor, next: frame.cursor + frame.data.length, bytes: payload });
        return;
      }
      const checked = parseJsonAs(PanelServerMessage, payload.toString('utf8'));
      // One this ptydeck does not know is left out: the remote runs the same version, so this is a remote's fault, not news.
      if (!checked.ok) return;
      if (first) {
        first = false;
        if (checked.value.type !== 'snapshot') return void child.kill('SIGTERM');
        this.connected = true;
        this.everConnected = true;
        this.delay = BACKOFF_FIRST_MS;
        this.setState('connected', null);
        this.snapshotEmitter.fire(checked.value);
        return;
      }
      this.messageEmitter.fire(checked.value);
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      try {
        reader.write(chunk);
      } catch (error) {
        lastError = (error as Error).message;
        child.kill('SIGTERM');
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => verdict.write(chunk));
    child.stdin!.on('error', () => {}); // A write after ssh died: 'close' says it.
    child.once('error', (error) => (lastError = `cannot run ssh: ${error.message}`));
    child.once('close', (code) => {
      verdict.end();
      if (this.child !== child || this.closed) return;
      this.child = undefined;
      this.connected = false;
      const failure = verdict.failure(code);
      if (failure) return this.setState('failed', failure);
      // ssh's own line often ends in a full stop; the detail goes on after it.
      const why = (lastError ?? (code === null ? 'ssh was killed' : `ssh exited with code ${code}`)).replace(/\.$/, '');
      // Never reached (a refused key, a host that is down, a typo in the destination): what ssh said, not "reconnecting".
      if (!this.everConnected) this.setState('connecting', `cannot reach ${this.remote.name} (${this.remote.destination}) yet: ${why}; trying again`);
      else this.setState('reconnecting', `reconnecting to ${this.remote.name} (${this.remote.destination}): ${why}; its sessions keep running there`);
      this.retry = setTimeout(() => this.start(), this.delay);
      this.retry.unref();
      this.delay = Math.min(this.delay * 2, BACKOFF_MAX_MS);
    });
  }
}
