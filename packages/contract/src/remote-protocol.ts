// The panel messages about remote hosts (`ptydeck remote add`): which the host reaches, and ports forwarded from them.
import { z } from 'zod';
import { SessionId } from './session.js';

/**
 * A panel that shows remote hosts asks for them with `hosts.watch`; the host
 * then reaches each remote in remotes.json through ssh for as long as that
 * panel is connected, and tells it every session there (SessionInfo's `host`
 * names the remote) and how each link fares (`hosts`). A client that never
 * asks (`ptydeck ls`, `attach`) opens no ssh connection.
 */

// ---- app → core ----

export const HostsWatchMessage = z.object({ type: z.literal('hosts.watch') });
/**
 * Opens a port a remote session's process listens on in this machine's
 * browser: the host forwards a free port on this machine's loopback to it
 * through ssh (kept until the session ends or the port closes) and answers
 * `port.forwarded` with the local URL. Only a port the session is known to
 * listen on is forwarded.
 */
export const PortForwardMessage = z.object({
  type: z.literal('port.forward'),
  requestId: z.string().max(64),
  id: SessionId,
  port: z.number().int().min(1).max(65535),
});

export const RemoteClientMessage = z.discriminatedUnion('type', [HostsWatchMessage, PortForwardMessage]);
export type RemoteClientMessage = z.infer<typeof RemoteClientMessage>;

// ---- core → app ----

/** How the link to a remote fares: `connecting` until it is first up (with a detail, what ssh said, after a try failed), `reconnecting` after it dropped (its sessions there keep running), `failed` when it cannot work without a fix (the message says which). */
export const RemoteHostState = z.enum(['connecting', 'connected', 'reconnecting', 'failed']);
export type RemoteHostState = z.infer<typeof RemoteHostState>;

export const RemoteHost = z.object({
  /** The remote's name in remotes.json: SessionInfo's and AgentInfo's `host`. */
  name: z.string().max(64),
  destination: z.string().max(255),
  state: RemoteHostState,
  /** Why it is reconnecting or failed, for a person; null when connected. */
  detail: z.string().max(2000).nullable(),
});
export type RemoteHost = z.infer<typeof RemoteHost>;

/** Every remote and its link's state: sent after `hosts.watch` and on each change. */
export const HostsMessage = z.object({ type: z.literal('hosts'), hosts: z.array(RemoteHost) });
export const PortForwardedMessage = z.object({
  type: z.literal('port.forwarded'),
  requestId: z.string(),
  id: SessionId,
  port: z.number().int(),
  /** Where this machine's browser reaches it: http://127.0.0.1:<local port>/. */
  url: z.string(),
});

export const RemoteServerMessage = z.discriminatedUnion('type', [HostsMessage, PortForwardedMessage]);
export type RemoteServerMessage = z.infer<typeof RemoteServerMessage>;
