// Session infos and lost-session records for tests that restore one without a session store.
import { randomUUID } from 'node:crypto';
import type { SessionInfo } from '@ptydeck/contract';
import type { LostRecord } from '../persist/lost-record.js';

/** A session's info as the core reports it: the developer's running bash, unless `overrides` say otherwise. */
export function sessionInfo(overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id: randomUUID(),
    source: 'user',
    owner: null,
    ownerName: null,
    title: 'bash',
    command: 'bash',
    args: [],
    cwd: '/tmp',
    pid: 4242,
    cols: 80,
    rows: 24,
    status: 'running',
    exitCode: null,
    signal: null,
    createdAt: 1_700_000_000_000,
    exitedAt: null,
    ...overrides,
  };
}

/**
 * A record an earlier host kept of a session that was running when it died,
 * for tests that restore one (PtyService.restore) without a session store:
 * `text` is its saved output from cursor `start`, and `unwrittenBytes` what
 * that host had read but not written (readEnd past the saved end).
 */
export function lostRecord(
  overrides: Partial<SessionInfo>,
  text: string,
  options: { start?: number; unwrittenBytes?: number | null } = {},
): LostRecord {
  const start = options.start ?? 0;
  const output = new TextEncoder().encode(text);
  const unwritten = options.unwrittenBytes === undefined ? 0 : options.unwrittenBytes;
  return { info: sessionInfo(overrides), start, output, readEnd: unwritten === null ? null : start + output.length + unwritten };
}
