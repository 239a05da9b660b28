/**
 * Where the desktop app's sessions live. Where the host can tell which process
 * asks it for panel scope (Linux, from /proc), the app is a client of the
 * user's ptydeck host: it starts the host detached or joins the one running,
 * and quitting the app leaves the host and every session running. Elsewhere
 * (macOS: no /proc, so the host hands panel scope to nobody who asks) the app
 * runs the core in its own process, as before the host existed, and its
 * sessions end with it.
 */
import type { DesktopServer, DesktopServerHooks } from './desktop.js';

export interface HostConnectionDeps {
  platform: NodeJS.Platform;
  /** Joins (or starts) the host with panel scope; joinHostAsPanel from '@ptydeck/core' in production. */
  joinHost: () => Promise<{ url: string; panelToken: string }>;
  /** Runs the core in this process; startHost (exclusive: false) in production. */
  startInProcess: (hooks: DesktopServerHooks) => Promise<DesktopServer>;
}

/** Whether the sessions outlive the app on this platform. */
export function usesHost(platform: NodeJS.Platform): boolean {
  return platform === 'linux';
}

/** The desktop's startServer: a host client, or the in-process core where a client cannot get panel scope. */
export function connectDesktop(deps: HostConnectionDeps): (hooks: DesktopServerHooks) => Promise<DesktopServer> {
  if (!usesHost(deps.platform)) return deps.startInProcess;
  return async () => {
    const host = await deps.joinHost();
    return {
      url: host.url,
      panelToken: host.panelToken,
      // The host is not ours to close: a quit leaves it, and every session, running.
      close: async () => {},
    };
  };
}
