/**
 * What the session store (issue 24) hands the host at start: the sessions an
 * earlier host was running or keeping when it died, as that host had written
 * them. The store (persist/, above pty) writes and reads these; the host turns
 * each into a read-only `lost` session (PtyService.restore, which is why the
 * type lives here) and gives agent-owned ones back to their agent (terminal-tool/).
 */
import type { SessionInfo } from '@ptydeck/contract';

export interface LostRecord {
  /** The session's info as last written (its status then: running or exited). */
  info: SessionInfo;
  /**
   * The output the old host wrote: the last bytes of the session's log, at most
   * the store's per-session cap. `output[0]` is at absolute cursor `start`, so a
   * reader's cursor from before the restart carries on.
   */
  start: number;
  output: Uint8Array;
  /**
   * The log's end cursor the old host last recorded in the metadata, beyond
   * `start + output.length` when it had read bytes it had not written yet;
   * null when unknown.
   */
  readEnd: number | null;
  /**
   * The agent tool's read cursor for the session when the old host last wrote
   * it (null: no agent was reading it), so the agent carries on where it was
   * and is not handed the same output twice. Absent from a record made by
   * other means than the store.
   */
  agentCursor?: number | null;
  /**
   * What the old host kept of the session's command timeline (timeline/), as
   * parsed JSON: untrusted, checked by the timeline's own schema. Absent when
   * none was kept.
   */
  timeline?: unknown;
}

/** Reads what an earlier host kept; the host calls it once at start, before it serves anyone. */
export interface LostRecordSource {
  /** Never rejects: a record that cannot be read is set aside and reported, and the others come back. */
  load(): Promise<LostRecord[]>;
  /** The record is no longer wanted (its session was removed): its files go. */
  forget(id: string): void;
}
