/**
 * What a session an earlier host kept becomes in this one (PtyService.restore):
 * a read-only record whose process is gone. One that was running when that
 * host died comes back `lost`, saying how much of its end is known missing;
 * one that had exited comes back exited, as it was. Either is marked
 * `restored`: a record is a file in the state directory, which anything
 * running as the developer can write, so nothing in it proves itself; what
 * would draw on a screen (controls in its title, cwd, command) is dropped.
 */
import { formatZodIssues, SessionInfo } from '@ptydeck/contract';
import type { LostRecord } from './lost-record.js';
import { shownAgentName } from '../common/printable.js';
import { withoutControls } from './title-tracker.js';
import { PtyError, type PtySessionInfo } from './types.js';

/** The restored session's info, or a PtyError naming what is wrong with the record. */
export function restoredInfo(record: LostRecord, foundAt: number): PtySessionInfo {
  const parsed = SessionInfo.safeParse(record.info);
  if (!parsed.success) throw new PtyError('invalid_argument', `cannot restore a session from a malformed record: ${formatZodIssues(parsed.error)}`);
  if (!Number.isSafeInteger(record.start) || record.start < 0) {
    throw new PtyError('invalid_argument', `cannot restore session '${parsed.data.id}': its output starts at ${record.start}, not a cursor`);
  }
  // Whatever the file said of ports, prompts and shells was learned of processes that are gone (facts/ says so anew).
  const { ports: _ports, attention: _attention, shell: _shell, ...info } = parsed.data;
  const wasRunning = info.status !== 'exited';
  const writtenEnd = record.start + record.output.length;
  return {
    ...info,
    // A record is a file anything running as the developer can write: what is drawn from it cannot draw.
    title: withoutControls(info.title),
    command: withoutControls(info.command),
    args: info.args.map(withoutControls),
    cwd: withoutControls(info.cwd),
    // As the host shows an MCP client's name: a blank or reversed badge passed an agent's tab for another's.
    ownerName: info.ownerName === null ? null : shownAgentName(info.ownerName),
    signal: info.signal !== null && SIGNAL_NAME.test(info.signal) ? info.signal : null,
    // Its process, if any is left, is not this host's; and a pid kept from then may name another process now.
    pid: 0,
    status: wasRunning ? 'lost' : 'exited',
    lost: wasRunning ? { foundAt, unwrittenBytes: record.readEnd === null ? null : Math.max(0, record.readEnd - writtenEnd) } : null,
    restored: true,
  };
}

const SIGNAL_NAME = /^SIG[A-Z0-9+-]{1,16}$/;

/** Why a restored session takes no input and cannot be resized: the process is gone. */
export function restoredRefusal(info: PtySessionInfo, action: string): PtyError {
  const why =
    info.status === 'lost'
      ? 'its process is gone: it was running when an earlier ptydeck host stopped (killed, crashed or upgraded), and this is the record of its output that host kept'
      : 'its process is gone: it had exited before the ptydeck host restarted, and this is the record of its output';
  return new PtyError('not_running', `cannot ${action} session '${info.id}': ${why}. Start a new session instead.`);
}
