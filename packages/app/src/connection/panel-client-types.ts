// What the panel client hands its users and takes as options: connection states, timers, options; the snapshot,
// resyncs and errors are the contract's panel channel's. Types only, apart from the client itself (panel-client.ts).
import type { ErrorReporter } from '@ptydeck/contract';

/** The protocol's own (the contract's panel channel), named here beside the client's for its users. */
export type { ChatCommand, PanelError, ResyncEvent, Snapshot } from '@ptydeck/contract';
import type { BackoffOptions } from './backoff.js';
import type { AccessCheck, PanelEndpoint } from './endpoint.js';
import type { OpenSocket } from './socket.js';

/**
 * Why the panel is not connected, as far as it can tell: the server answers
 * but refuses this page (no valid credentials: a page opened without its
 * one-time link, or a server restarted since), the server does not answer at
 * all (stopped, or restarted on another port), or not known.
 */
export type DisconnectCause = 'unknown' | 'unauthorized' | 'unreachable';

export type ConnectionStatus =
  /** `attempt` 0 is the first connection; later ones keep the cause of the last failure. */
  | { state: 'connecting'; attempt: number; cause: DisconnectCause }
  /** Snapshot received: the panel is in sync with the server. */
  | { state: 'connected'; instance: string }
  | { state: 'disconnected'; attempt: number; retryInMs: number; reason: string; cause: DisconnectCause }
  | { state: 'disposed' };

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface PanelClientOptions {
  /** Resolved before every connection attempt (the Electron bridge may hand out a fresh token). */
  endpoint: () => Promise<PanelEndpoint>;
  openSocket: OpenSocket;
  backoff?: BackoffOptions;
  random?: () => number;
  timers?: Timers;
  /** Where a failed connection attempt is reported. Default: the contract's reportError (the console). */
  reportError?: ErrorReporter;
  /**
   * Asked after a failed or lost connection: may this page open the panel
   * socket, and does the server answer at all? (A browser does not say why a
   * WebSocket handshake failed.) Without it the cause stays 'unknown'.
   */
  checkAccess?: () => Promise<AccessCheck>;
}
