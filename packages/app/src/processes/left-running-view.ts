// Which of the sessions that left processes running the overview shows, so a long list does not push the agents off screen.
import type { LeftoverSession } from '@ptydeck/contract';

/** Cards shown before the rest collapse into "and N more". */
export const LEFT_RUNNING_SHOWN = 3;

export interface LeftRunningView {
  /** Newest first: the tab just closed is the one the developer looks for. */
  shown: LeftoverSession[];
  /** How many more there are, behind "and N more" (0 when expanded or when all fit). */
  more: number;
}

/**
 * The cards of "Left running", newest first (by the latest start among a
 * session's processes). Collapsed, the first LEFT_RUNNING_SHOWN are shown and
 * the rest counted; a list one longer than that is shown whole, since "and 1
 * more" takes the room the card would.
 */
export function leftRunningView(sessions: readonly LeftoverSession[], expanded: boolean, limit: number = LEFT_RUNNING_SHOWN): LeftRunningView {
  const newest = (session: LeftoverSession) => Math.max(0, ...session.processes.map((proc) => proc.startedAt));
  const ordered = [...sessions].sort((a, b) => newest(b) - newest(a));
  if (expanded || ordered.length <= limit + 1) return { shown: ordered, more: 0 };
  return { shown: ordered.slice(0, limit), more: ordered.length - limit };
}

/** Whose a card's processes were and how that ended, under its title. */
export function leftoverMeta(session: Pick<LeftoverSession, 'kind' | 'source' | 'ownerName' | 'known'>): string {
  if (session.kind === 'chat') return "a chat's agent · its ptydeck host is gone";
  return `${session.source === 'agent' ? `${session.ownerName ?? 'agent'}'s shell` : 'your terminal'} · ${session.known ? 'exited' : 'closed'}`;
}
