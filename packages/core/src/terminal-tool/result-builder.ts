// Builds the terminal tool's results in the order a model reads them.
import type { SessionInfo } from '@ptydeck/contract';
import type { AgentTerminal } from './agent-terminal.js';
import type { CommandRecord } from './command-tracker.js';
import type { PtyService } from '../pty/types.js';
import type { ResultSession } from './strategy-targets.js';
import type { ListedPort, ListedProcess, ListResult, OutputResult, PortInUse, RunResult, TerminalFields, WaitResult } from './results.js';
import { DEFAULT_MAX_BYTES } from './tool-schemas.js';
import { nextLoopTurn } from '../common/loop-turn.js';

/** The terminal's own state: the last fields of every result. Telling `caller` of an input wait is noted. */
export function terminalFields(session: ResultSession, info: SessionInfo, caller?: string): TerminalFields {
  const { state, attention } = session.state();
  if (attention && caller !== undefined) session.attentionTold(caller);
  return {
    id: session.id,
    state,
    ...(attention ? { prompt: attention.kind, prompt_text: attention.prompt } : {}),
    ...(attention && session.developerAnswering ? { developer_answering: true } : {}),
    ...(info.status === 'exited' ? { process_exit_code: info.exitCode, process_signal: info.signal } : {}),
    ...(info.status === 'lost' ? { unwritten_bytes: info.lost?.unwrittenBytes ?? null } : {}),
    ...(info.restored ? { restored: true as const } : {}),
  };
}

/** A terminal_run result, in the order a model reads it. */
export function runResult(
  session: ResultSession,
  info: SessionInfo,
  outcome: RunResult['outcome'],
  exitCode: number | null,
  own: { text: string; truncated: boolean; skipped: number },
  earlier: string | undefined,
  started: number,
  caller: string,
): RunResult {
  return {
    outcome,
    exit_code: exitCode,
    output: own.text,
    truncated: own.truncated,
    ...(earlier !== undefined ? { earlier_output: earlier } : {}),
    ...(own.skipped > 0 ? { skipped: own.skipped } : {}),
    elapsed_ms: Date.now() - started,
    cwd: session.cwd,
    ...terminalFields(session, info, caller),
  };
}

/**
 * Output since the caller's cursor, up to the end, or to the end of a
 * finished command (`until`); moves the cursor past what it returned.
 * Everything it says is taken in the caller's turn; a long output's windows
 * render in turns of their own (OutputView.readInTurns: 4 to 6 ms of CPU
 * each at the default 16 KiB, four times that per window at 64 KiB).
 */
export async function readNew(caller: string, session: AgentTerminal, info: SessionInfo, maxBytes: number | undefined, until?: CommandRecord): Promise<OutputResult> {
  const from = session.cursorOf(caller);
  const end = until?.outputEnd ?? session.safeEnd;
  const next = until?.doneEnd ?? end;
  const rendering = session.view.readInTurns(from, end, maxBytes ?? DEFAULT_MAX_BYTES, nextLoopTurn);
  const finished = session.tracker.finishedBetween(from, next);
  session.advanceCursor(caller, next);
  const exitCode = finished && finished.exitCode !== null ? { exit_code: finished.exitCode } : {};
  const cursor = session.cursorOf(caller);
  const fields = terminalFields(session, info, caller);
  const rendered = await rendering;
  return { output: rendered.text, truncated: rendered.truncated, ...exitCode, cursor, skipped: rendered.skipped, ...fields };
}

/** A result with the ports it found opened and the taken ports its output names, when there are any. */
export function withPorts<T extends RunResult | WaitResult>(result: T, ports: ListedPort[] | undefined, inUse?: PortInUse[]): T {
  return {
    ...result,
    ...(ports && ports.length > 0 ? { ports_opened: ports } : {}),
    ...(inUse && inUse.length > 0 ? { port_in_use: inUse } : {}),
  };
}

/** terminal_list's result: the caller's sessions the service still holds, with their processes where known. */
export function listTerminals(
  service: PtyService,
  caller: string,
  sessions: readonly AgentTerminal[],
  processes: Map<string, { ports: ListedPort[]; background: ListedProcess[] }> | undefined,
): ListResult {
  const terminals: ListResult['terminals'] = [];
  // Counting what a read would return renders the unread output (about 1.2 ms of CPU for 64 KiB of colored lines):
  // one call over many sessions with backlogs renders at most this much, on the host's loop, and counts the rest's
  // raw bytes outside prompts (OutputView.textBytes).
  let renderBudget = LIST_RENDER_BUDGET;
  for (const session of sessions) {
    const info = service.get(session.id);
    if (!info) continue;
    const { state } = session.state();
    terminals.push({
      id: session.id,
      title: info.title,
      command: [info.command, ...info.args].join(' '),
      cwd: session.cwd,
      state,
      ...(info.status === 'exited' ? { process_exit_code: info.exitCode } : {}),
      unread_bytes: unreadBytes(session, caller, renderBudget),
      created_at: info.createdAt,
      ...(info.sandbox ? { sandbox: info.sandbox.profile } : {}),
      ...processes?.get(session.id),
    });
    renderBudget -= Math.max(0, session.safeEnd - session.cursorOf(caller));
  }
  return { terminals };
}

/** Raw bytes terminal_list renders to count unread text, over all the caller's sessions (see listTerminals). */
export const LIST_RENDER_BUDGET = 256 * 1024;

function unreadBytes(session: AgentTerminal, caller: string, renderBudget: number): number {
  return session.view.textBytes(session.cursorOf(caller), session.safeEnd, DEFAULT_MAX_BYTES, Math.max(0, renderBudget));
}
