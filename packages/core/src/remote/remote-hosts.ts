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
      changed: () => this.disposed || this.announce(),
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
    const relay = this.relays.find((candidate) => candidate.owns(message.id as string));
    if (!relay) return false;
    relay.route(message as Parameters<RemoteRelay['route']>[0]);
    return true;
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
