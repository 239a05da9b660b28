// `ptydeck status`: the running host as it reports itself: pid, version, state directory, uptime, sessions, agents.
import type { CliIo } from './cli-io.js';
import { hostSnapshot, type HostSnapshot } from './host-snapshot.js';
import { printable, terminalSafeJson } from '../common/printable.js';
import { sessionState, type SessionState } from './session-list.js';
import { EXIT_OK } from '../common/exit-codes.js';

/** `ptydeck status --json`: snake_case, stable keys; null where a host older than this CLI did not say. */
export interface HostStatus {
  pid: number;
  version: string | null;
  protocol: number | null;
  state_dir: string | null;
  url: string;
  /** Epoch milliseconds. */
  started_at: number | null;
  uptime_ms: number | null;
  sessions: { total: number } & Record<SessionState, number>;
  /** The names of the agents connected now. */
  agents: string[];
}

const STATES: readonly SessionState[] = ['running', 'idle_at_prompt', 'waiting_for_input', 'exited', 'lost'];

/**
 * `ptydeck status`: what the host says of itself in its snapshot
 * (proven, and the asker judged, as for `ptydeck ls`), not what server.json, which
 * any process of the user may write, claims.
 */
export async function runStatus(command: { json: boolean }, io: CliIo): Promise<number> {
  const status = hostStatus(await hostSnapshot('ptydeck status'), Date.now());
  io.stdout.write(command.json ? `${terminalSafeJson(status)}\n` : formatStatus(status));
  return EXIT_OK;
}

export function hostStatus(panel: HostSnapshot, now: number): HostStatus {
  const { host, sessions, agents } = panel.snapshot;
  const counts = Object.fromEntries(STATES.map((state) => [state, 0])) as Record<SessionState, number>;
  for (const info of sessions) counts[sessionState(info)]++;
  return {
    pid: host?.pid ?? panel.hostPid,
    version: host?.version ?? null,
    protocol: host?.protocol ?? null,
    state_dir: host?.stateDir ?? null,
    url: panel.url,
    started_at: host?.startedAt ?? null,
    uptime_ms: host ? Math.max(0, now - host.startedAt) : null,
    sessions: { total: sessions.length, ...counts },
    agents: agents.map((agent) => agent.name),
  };
}

/** The human form: one fact a line, every field printable. */
export function formatStatus(status: HostStatus): string {
  const unknown = 'unknown (the host predates `ptydeck status`)';
  const byState = STATES.filter((state) => status.sessions[state] > 0).map((state) => `${status.sessions[state]} ${state}`);
  const rows: Array<[string, string]> = [
    ['version', status.version === null ? unknown : `${status.version} (host protocol ${status.protocol})`],
    ['state dir', status.state_dir ?? unknown],
    ['url', status.url],
    ['uptime', status.uptime_ms === null ? unknown : formatUptime(status.uptime_ms)],
    ['sessions', `${status.sessions.total}${byState.length > 0 ? `: ${byState.join(', ')}` : ''}`],
    ['agents', status.agents.length === 0 ? 'none connected' : `${status.agents.length} connected: ${status.agents.join(', ')}`],
  ];
  return [`ptydeck host running, pid ${status.pid}`, ...rows.map(([name, value]) => `  ${name.padEnd(10)}${printable(value)}`)].join('\n') + '\n';
}

const UNITS: ReadonlyArray<readonly [number, string]> = [
  [86_400, 'd'],
  [3600, 'h'],
  [60, 'm'],
  [1, 's'],
];

/** 42s, 5m 3s, 3h 12m, 2d 4h: the two largest units. */
function formatUptime(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const at = UNITS.findIndex(([size]) => seconds >= size);
  if (at === -1) return '0s';
  const [size, name] = UNITS[at]!;
  const next = UNITS[at + 1];
  return next ? `${Math.floor(seconds / size)}${name} ${Math.floor((seconds % size) / next[0])}${next[1]}` : `${seconds}${name}`;
}
