// Session infos and lost-session records for tests that restore one without a session store.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { SessionInfo } from '@ptydeck/contract';
import type { LostRecord } from '../pty/lost-record.js';
import { sessionStoreDir } from '../persist/session-store.js';
import { metaPath, outputHeader, outputPath, type SessionMeta } from '../persist/store-format.js';

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

/**
 * Writes a record into a session store's directory as a host would, or as
 * anything running as the developer can: `<id>.json` and `<id>.out` holding
 * `text` from cursor `start` (default 0), the old host's log end `readEnd`
 * (default the text's end; null when unknown). For tests of what a restore
 * makes of a planted one, and for specs that start a host on an earlier one's records.
 */
export function plantRecord(
  dir: string,
  overrides: Partial<SessionInfo>,
  text: string,
  options: { start?: number; readEnd?: number | null } = {},
): SessionInfo {
  const info = sessionInfo(overrides);
  const output = Buffer.from(text);
  const start = options.start ?? 0;
  const written = start + output.length;
  const meta: SessionMeta = { version: 1, info, written, readEnd: options.readEnd === undefined ? written : options.readEnd, agentCursor: null, savedAt: Date.now() };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(metaPath(dir, info.id), JSON.stringify(meta), { mode: 0o600 });
  writeFileSync(outputPath(dir, info.id), Buffer.concat([outputHeader(start), output]), { mode: 0o600 });
  return info;
}

/** What an earlier host of `stateDir` kept, planted where the next host's session store finds it. */
export function plantInStateDir(stateDir: string, records: ReadonlyArray<{ info: SessionInfo; start: number; text: string; readEnd: number | null }>): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  for (const { info, start, text, readEnd } of records) plantRecord(sessionStoreDir(stateDir), info, text, { start, readEnd });
}
