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
import { parsePersistedTimeline, type Timeline } from '../timeline/index.js';

/**
 * Restores what `store` kept into `service` and `tool`, then records; resolves
 * with the disposer of the recording. Never rejects for what is on disk: a
 * record is untrusted input (docs/security.md), and a host starts
 * without the ones it cannot take.
 */
export async function restoreAndRecord(
  store: Pick<SessionStore, 'load' | 'forget' | 'record'> & Partial<Pick<SessionStore, 'loadClosedCommands'>>,
  service: PtyService,
  tool: TerminalTool,
  report: ErrorReporter = reportError,
  /** The command timeline: its records are kept with the output and come back with their session. */
  timeline?: Timeline,
): Promise<() => void> {
  const records = (
    await store.load().catch((error: unknown) => {
      report(error, 'the session store could not be read; no session of an earlier host comes back');
      return [];
    })
  ).sort((a, b) => a.info.createdAt - b.info.createdAt);
  // The closed sessions' records (what ran in them, and how it ended), before this host's own close any.
  const closed = timeline && store.loadClosedCommands ? await store.loadClosedCommands().catch((error: unknown) => report(error, "the closed sessions' command records could not be read")) : undefined;
  if (timeline && closed) timeline.restoreClosed(closed);
  // Recording first, so the store follows every restored session from its creation.
  const stop = store.record(service, { agentCursorOf: (id) => tool.agentCursorOf(id), ...(timeline ? { timeline } : {}) });
  for (const record of records) {
    try {
      tool.adoptRestored(service.restore(record), record.agentCursor ?? null);
      if (timeline && record.timeline !== undefined) {
        const saved = parsePersistedTimeline(record.timeline);
        if (saved instanceof Error) report(saved.message, `the command records of session ${record.info.id} are not restored`);
        else timeline.restore(record.info.id, saved);
      }
    } catch (error) {
      report(error, `session ${record.info.id} kept by an earlier host could not be restored; its record is dropped`);
      store.forget(record.info.id);
    }
  }
  return stop;
}
