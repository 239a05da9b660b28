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
