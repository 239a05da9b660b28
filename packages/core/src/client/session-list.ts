import type { AgentInfo, SandboxInfo, SessionInfo } from '@ptydeck/contract';
import { printable } from '../common/printable.js';

/**
 * What `ptydeck ls` says of a session, pure so it is tested without a server.
 * `idle_at_prompt` is known only of a shell whose commands the core follows
 * (an agent's bash, or the developer's bash tab, with its marks); any other running program is
 * `running`. `lost`: an earlier host ran it and was killed, crashed or was
 * upgraded; its process is gone and its output is what that host saved.
 */
export type SessionState = 'running' | 'idle_at_prompt' | 'waiting_for_input' | 'exited' | 'lost';

/** One session as `ptydeck ls --json` prints it: snake_case, stable keys. */
export interface SessionListEntry {
  id: string;
  source: SessionInfo['source'];
  /** The agent's name, or "you" for the developer's own sessions. */
  owner: string;
  title: string;
  state: SessionState;
  pid: number;
  cwd: string;
  exit_code: number | null;
  signal: string | null;
  command: string;
  cols: number;
  rows: number;
  /** Epoch milliseconds. */
  created_at: number;
  /** What the program waits for, with state waiting_for_input. */
  prompt: string | null;
  /** Exit code of the shell's newest finished command, where the core follows its commands. */
  last_exit_code: number | null;
  /**
   * The TCP ports its processes listen on (for an exited session, those it
   * left running), as the host last looked; null where the system cannot say.
   */
  ports: Array<{ port: number; address: string; pid: number; command: string }> | null;
  /**
   * An agent's shell's sandbox: its profile, the paths it may write, the paths
   * hidden from it, its network, and (profile off) why a default sandbox could
   * not start. Null for sessions started without one in mind (yours).
   */
  sandbox: SandboxInfo | null;
  /**
   * Taken back from the record an earlier host left on disk (lost, or exited
   * as it was): a file anything running as the user could have written, so
   * its title, command and cwd prove nothing.
   */
  restored: boolean;
}

/** Characters of an id shown in the table: enough to be unique among a person's sessions, short to type. */
export const SHORT_ID_LENGTH = 8;

export function sessionState(info: SessionInfo): SessionState {
  if (info.status === 'exited') return 'exited';
  if (info.status === 'lost') return 'lost';
  if (info.attention) return 'waiting_for_input';
  return info.shell?.state === 'idle' ? 'idle_at_prompt' : 'running';
}

export function ownerOf(info: SessionInfo, agents: readonly AgentInfo[]): string {
  if (info.source === 'user') return 'you';
  return info.ownerName ?? agents.find((agent) => agent.id === info.owner)?.name ?? 'agent';
}

export function listEntry(info: SessionInfo, agents: readonly AgentInfo[]): SessionListEntry {
  return {
    id: info.id,
    source: info.source,
    owner: ownerOf(info, agents),
    title: info.title,
    state: sessionState(info),
    pid: info.pid,
    cwd: info.cwd,
    exit_code: info.exitCode,
    signal: info.signal,
    command: info.command,
    cols: info.cols,
    rows: info.rows,
    created_at: info.createdAt,
    prompt: info.attention?.prompt ?? null,
    last_exit_code: info.shell?.lastExitCode ?? null,
    ports: info.ports ? info.ports.map(({ port, address, pid, command }) => ({ port, address, pid, command })) : null,
    sandbox: info.sandbox ?? null,
    restored: info.restored === true,
  };
}

const TABLE_HEADER = ['ID', 'SOURCE', 'OWNER', 'TITLE', 'STATE', 'SANDBOX', 'PORTS', 'CWD', 'AGE'];

/**
 * The human table: a header, one row per session, oldest first; `home` is
 * shortened to ~. Every field is made printable. Plain loops: a short command
 * runs this once, in V8's interpreter, where each callback and spread of
 * rows counted (bench figure 12, `ls` with 100 sessions).
 */
export function formatTable(entries: readonly SessionListEntry[], now: number, home: string): string {
  if (entries.length === 0) return 'no sessions\n';
  const rows = [TABLE_HEADER];
  for (const entry of [...entries].sort((a, b) => a.created_at - b.created_at)) {
    rows.push([
      entry.id.slice(0, SHORT_ID_LENGTH),
      entry.source,
      clip(entry.owner, 24),
      clip(entry.title, 32),
      stateCell(entry),
      sandboxCell(entry.sandbox),
      clip(portList(entry.ports), 24),
      clip(tildePath(entry.cwd, home), 40),
      formatAge(now - entry.created_at),
    ]);
  }
  // The last column is not padded.
  const last = TABLE_HEADER.length - 1;
  const widths = TABLE_HEADER.map(() => 0);
  for (const row of rows) for (let column = 0; column < last; column++) widths[column] = Math.max(widths[column]!, row[column]!.length);
  let text = '';
  for (const row of rows) {
    for (let column = 0; column < last; column++) text += row[column]!.padEnd(widths[column]! + 2);
    text += `${row[last]}\n`;
  }
  return text;
}

/** 42s, 5m, 3h, 2d: the largest unit that is at least one. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}


/** The state, with how an exited session ended; "restored" beside it when an earlier host's record brought it back (lost says that already). */
function stateCell(entry: SessionListEntry): string {
  const restored = entry.restored && entry.state !== 'lost' ? 'restored' : null;
  if (entry.state === 'exited') return `exited (${[entry.signal ?? entry.exit_code ?? '?', restored].filter((part) => part !== null).join(', ')})`;
  return restored ? `${entry.state} (${restored})` : entry.state;
}

/** The profile; "unsandboxed" where a default sandbox could not start (--json says why); - for your own sessions. */
function sandboxCell(sandbox: SandboxInfo | null): string {
  if (!sandbox) return '-';
  return sandbox.profile === 'off' && sandbox.unavailable ? 'unsandboxed' : sandbox.profile;
}

/** 3000,8080 (a port on IPv4 and IPv6 once); - for none, ? where the host cannot say. */
function portList(ports: SessionListEntry['ports']): string {
  if (ports === null) return '?';
  if (ports.length === 0) return '-';
  return [...new Set(ports.map((entry) => entry.port))].sort((a, b) => a - b).join(',');
}

function clip(text: string, max: number): string {
  const flat = printable(text);
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function tildePath(path: string, home: string): string {
  if (home.length > 1 && (path === home || path.startsWith(`${home}/`))) return `~${path.slice(home.length)}`;
  return path;
}
