/**
 * A command record read back from the store (a closed session's, or a restored session's timeline):
 * checked against the contract's schema by the reader, and made harmless to show here. A record is a
 * file anything running as the developer can write, so what it says is drawn as text, never as
 * controls; its agent's name reads as the host shows an agent's name (no blank or reversed badge,
 * passed for another's); and it names no remote (only the relay tags a remote's records).
 */
import type { CommandRecord } from '@ptydeck/contract';
import { shownAgentName } from '../common/printable.js';
import { withoutControls } from '../pty/title-tracker.js';

/** Clocks of one machine across a restart: a record an earlier host wrote cannot be later than this. */
const CLOCK_SLACK_MS = 60_000;

/**
 * The records an earlier host could have written (none dated after `now`: listings and the panel's
 * snapshot take the newest, so planted future-dated ones would hold them for themselves), each made
 * harmless to show (recordFromDisk).
 */
export function recordsFromDisk(records: readonly CommandRecord[], now = Date.now()): CommandRecord[] {
  const latest = now + CLOCK_SLACK_MS;
  return records
    .filter((record) => record.startedAt <= latest && (record.endedAt ?? 0) <= latest && (record.closed?.at ?? 0) <= latest)
    .map(recordFromDisk);
}

/** One record drawn as text: no controls in its command, cwd or title, its agent's name as the host shows one, no remote, marked restored once closed. */
export function recordFromDisk(record: CommandRecord): CommandRecord {
  const { host: _host, closed, ...rest } = record;
  return {
    ...rest,
    command: record.command === null ? null : withoutControls(record.command),
    cwd: record.cwd === null ? null : withoutControls(record.cwd),
    actor: { kind: record.actor.kind, name: record.actor.name === null ? null : shownAgentName(record.actor.name) },
    ...(closed ? { closed: { title: withoutControls(closed.title), at: closed.at, restored: true as const } } : {}),
  };
}
