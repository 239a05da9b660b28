/**
 * How a host keeps its sessions across its own death (issue 24): at start,
 * before it serves anyone, what the earlier host kept comes back (read-only,
 * `lost` or exited; an agent's to its agent again, its read position kept),
 * and from then on the store keeps what this host's sessions do, the agents'
 * read positions included; a removed session's files go (the store follows
 * pty.removed).
 */
import { reportError, type ErrorReporter } from '@ptydeck/contract';
import type { TerminalTool } from '../terminal-tool/index.js';
import type { SessionStore } from '../persist/session-store.js';
import type { PtyService } from '../pty/types.js';

/** Restores what `store` kept into `service` and `tool`, then records; returns the disposer of the recording. */
export function restoreAndRecord(
  store: Pick<SessionStore, 'load' | 'forget' | 'record'>,
  service: PtyService,
  tool: TerminalTool,
  report: ErrorReporter = reportError,
): () => void {
  const records = store.load().sort((a, b) => a.info.createdAt - b.info.createdAt);
  // Recording first: a restored session the caps evict at once is removed, and the store hears of it.
  const stop = store.record(service, { agentCursorOf: (id) => tool.agentCursorOf(id) });
  for (const record of records) {
    try {
      tool.adoptRestored(service.restore(record), record.agentCursor ?? null);
    } catch (error) {
      report(error, `session ${record.info.id} kept by an earlier host could not be restored; its record is dropped`);
      store.forget(record.info.id);
    }
  }
  return stop;
}
