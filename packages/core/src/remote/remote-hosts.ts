// A panel's remote hosts: one relayed link per remote in remotes.json, opened when the panel asks and closed with it.
import type { PanelClientMessage, PanelServerMessage, RemoteHost } from '@ptydeck/contract';
import { readRemotes, type RemoteEntry } from './remotes-config.js';
import { RemotePanelLink } from './remote-panel-link.js';
import { RemoteRelay } from './remote-relay.js';

export interface RemoteHostsSink {
  send(message: PanelServerMessage): void;
  sendBinary(bytes: Uint8Array): void;
  /** Whether this machine's host has a session by this id. */
  isLocal(id: string): boolean;
}

export interface RemoteHostsOptions {
  /** Where remotes.json is. */
  configDir: string;
  /** ssh's environment (PTYDECK_SSH, SSH_AUTH_SOCK, HOME). Default process.env. */
  env?: Record<string, string | undefined>;
  /** ptydeck's state directory: the shared ssh connections' control sockets are there. */
  stateDir?: string;
  log?: (line: string) => void;
}

/** Opens a panel's remote hosts; the panel connection calls it on `hosts.watch`. */
export type OpenRemoteHosts = (sink: RemoteHostsSink) => RemoteHosts;

export function remoteHostsOpener(options: RemoteHostsOptions): OpenRemoteHosts {
  return (sink) => new RemoteHosts(options, sink);
}

/**
 * Every remote one panel shows. remotes.json is read when the panel asks;
 * a remote added later shows in the next panel (or after a reload). A
 * remotes.json that cannot be read is said once, as a panel error.
 */
export class RemoteHosts {
  private readonly relays: RemoteRelay[] = [];
  private disposed = false;
  /**
   * Attaches for ids no host has claimed yet, with the cursor asked: a panel
   * that reconnected to this machine asks for its remote streams from their
   * cursors before the remotes' links are up. Each is handed to the remote
   * whose snapshot names it; once every remote has answered, the rest are
   * told gone.
   */
  private readonly waiting = new Map<string, number | null>();

  constructor(
    options: RemoteHostsOptions,
    private readonly sink: RemoteHostsSink,
  ) {
    let remotes: RemoteEntry[];
    try {
      remotes = readRemotes(options.configDir);
    } catch (error) {
      sink.send({ type: 'error', code: 'remotes_config', message: (error as Error).message });
      remotes = [];
    }
    const relaySink = {
      send: (message: PanelServerMessage) => this.disposed || sink.send(message),
      sendBinary: (bytes: Uint8Array) => this.disposed || sink.sendBinary(bytes),
      taken: (id: string, by: RemoteRelay) => sink.isLocal(id) || this.relays.some((relay) => relay !== by && relay.owns(id)),
      changed: () => {
        if (this.disposed) return;
        this.announce();
        this.settleWaiting();
      },
      answered: () => this.disposed || this.settleWaiting(),
      claim: (id: string) => {
        const cursor = this.waiting.get(id);
        this.waiting.delete(id);
        return cursor;
      },
    };
    for (const remote of remotes) {
      const link = new RemotePanelLink(remote, { ...(options.env ? { env: options.env } : {}), ...(options.log ? { log: options.log } : {}), ...(options.stateDir ? { stateDir: options.stateDir } : {}) });
      this.relays.push(new RemoteRelay(link, relaySink));
    }
    this.announce();
  }

  /** Every remote and how its link fares. */
  hosts(): RemoteHost[] {
    return this.relays.map((relay) => ({ name: relay.name, destination: relay.link.remote.destination, ...relay.link.state }));
  }

  /**
   * Takes a panel message that belongs to a remote: one naming a session no
   * local one has and a remote does, or a `create` naming a remote. False
   * for everything else (the local host's to handle).
   */
  route(message: PanelClientMessage): boolean {
    if (message.type === 'create') {
      if (message.host === undefined) return false;
      const relay = this.relays.find((candidate) => candidate.name === message.host);
      if (!relay) {
        this.sink.send({ type: 'error', code: 'no_such_host', message: `no remote named '${message.host}'`, requestId: message.requestId });
        return true;
      }
      relay.route(message);
      return true;
    }
    if (!('id' in message) || typeof message.id !== 'string' || this.sink.isLocal(message.id)) return false;
    const relay = this.relays.find((candidate) => candidate.routes(message.id as string));
    if (!relay) return this.hold(message);
    relay.route(message as Parameters<RemoteRelay['route']>[0]);
    return true;
  }

  /** An attach (or its detach) for an id no remote has named yet, kept while some remote has not said what it has. */
  private hold(message: PanelClientMessage): boolean {
    if (message.type === 'detach') return this.waiting.delete(message.id);
    if (message.type !== 'attach' || this.relays.every((relay) => relay.settled)) return false;
    this.waiting.set(message.id, message.cursor);
    return true;
  }

  /** Once every remote said what it has, the ids none claimed are gone: the panel hears so and forgets their cursors. */
  private settleWaiting(): void {
    if (this.waiting.size === 0 || !this.relays.every((relay) => relay.settled)) return;
    for (const id of this.waiting.keys()) this.sink.send({ type: 'event', event: { type: 'pty.removed', id } });
    this.waiting.clear();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const relay of this.relays.splice(0)) relay.dispose();
  }

  private announce(): void {
    this.sink.send({ type: 'hosts', hosts: this.hosts() });
  }
}
