// The labels a host writes into its sessions' environments, and which session a process carrying some was started in.
import { createHash, randomBytes } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import type { SessionId } from '@ptydeck/contract';

/** What a process's environment says of the session it comes from (PTYDECK_SESSION_ID, PTYDECK_HOST_ID, PTYDECK_SESSION_KEY). */
export interface ProcessLabel {
  id: string;
  host: string | undefined;
  key: string | undefined;
}

/** What a process's environment says of the chat whose agent started it (PTYDECK_CHAT_ID and the variables beside it). */
export interface ChatLabel {
  chatId: string;
  /** PTYDECK_CHAT_HOST: the host that ran the chat, as `<pid>:<start ticks>`. */
  chatHost: string | undefined;
  /** PTYDECK_HOST_ID. */
  hostId: string | undefined;
  /** Whether it carries a PTYDECK_SESSION_ID too (a session's, which the process watch lists by that session). */
  inSession: boolean;
}

/** What a process's environment says of whose it is: the session's labels, the chat's; read once per program (pty/process-facts.ts). */
export interface EnvironLabels {
  session?: ProcessLabel;
  chat?: ChatLabel;
}

/** What a scan of the process table asks of the host whose sessions it looks for. */
export interface LabelReader {
  /** This host's id, in PTYDECK_HOST_ID of every session it starts. */
  readonly hostId: string;
  /**
   * The session a process carrying `label` was started in, as far as labels
   * can tell (the process tree and POSIX session come first: pty/session-processes.ts);
   * undefined when it is none of this host's or its label is forged.
   */
  sessionOf(label: ProcessLabel): string | undefined;
}

/**
 * Sessions whose keys a host remembers. A key outlives its session's tab (a
 * closed tab's `nohup` job still carries it); past this many the oldest are
 * forgotten, and their processes are known by their id alone, as after a restart.
 */
const MAX_REMEMBERED = 4096;

/**
 * A host's labels. Every session's environment carries, beside
 * PTYDECK_SESSION_ID (programs find their tab by it):
 * - PTYDECK_HOST_ID, the host's: what another host's sessions (another state
 *   directory's, a test's) left running is none of this host's, and is
 *   neither listed nor ended by it;
 * - PTYDECK_SESSION_KEY, random per session and known to this host: a
 *   process that sets PTYDECK_SESSION_ID to another session's id (the
 *   developer's, to hide from its own terminal_close) still carries the key
 *   of the session it was started in, and is that session's.
 * Labels are the environment a process was started with: any process can set
 * them, so they are a hint the process table overrules (its tree and POSIX
 * session), and a key is unguessable, not secret (a process of the same user
 * can read another's /proc/<pid>/environ).
 */
export class SessionLabels implements LabelReader {
  /** Key by session, oldest first, and session by key. */
  private readonly keys = new Map<SessionId, string>();
  private readonly sessions = new Map<string, SessionId>();

  constructor(readonly hostId: string = randomBytes(8).toString('hex')) {}

  /** The labels of a new session's environment. */
  issue(id: SessionId): { id: SessionId; host: string; key: string } {
    const key = randomBytes(16).toString('hex');
    this.keys.set(id, key);
    this.sessions.set(key, id);
    for (const [oldest, oldKey] of this.keys) {
      if (this.keys.size <= MAX_REMEMBERED) break;
      this.keys.delete(oldest);
      this.sessions.delete(oldKey);
    }
    return { id, host: this.hostId, key };
  }

  /** Forgets the labels issued to a session that was not made. */
  forget(id: SessionId): void {
    const key = this.keys.get(id);
    this.keys.delete(id);
    if (key !== undefined) this.sessions.delete(key);
  }

  sessionOf(label: ProcessLabel): string | undefined {
    if (label.host !== this.hostId) return undefined;
    // The key it kept names the session it was started in, whatever id it claims.
    const started = label.key === undefined ? undefined : this.sessions.get(label.key);
    if (started !== undefined) return started;
    // Every process a session of this host started carries its key: an id of ours without it is a forged label.
    // Without a key we know, the id stands: a session of an earlier host of this state directory.
    return this.keys.has(label.id) ? undefined : label.id;
  }
}

/**
 * The id of the host of `stateDir`, the same for every host that state
 * directory has (a restarted host lists what the previous one's sessions
 * left running) and different for another's. It is taken from what the
 * kernel says of the directory (its device and inode, and its real path), not
 * from a file in it: an agent's shell can write the state directory, and an
 * id it could copy from another state directory would have this host list,
 * and the developer end, the other host's live shells. A directory replaced
 * under the same path may get another id (another inode), which at worst
 * leaves an earlier host's leftovers unlisted.
 */
export function hostIdOf(stateDir: string): string {
  let identity: string;
  try {
    const stat = statSync(stateDir);
    identity = `${stat.dev}:${stat.ino}:${realpathSync(stateDir)}`;
  } catch {
    identity = `missing:${stateDir}`;
  }
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}
