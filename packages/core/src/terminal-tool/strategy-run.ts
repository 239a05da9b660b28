// A terminal_run as each execute strategy makes it: prompt, busy check, the line followed, the result built.
import { nextLoopTurn } from '../common/loop-turn.js';
import type { CommandRecord } from './command-tracker.js';
import { TerminalToolError, fromPtyError } from './errors.js';
import { streamProgress } from './progress.js';
import { runResult } from './result-builder.js';
import type { RunResult } from './results.js';
import type { ExecuteStrategy, RunRequest, RunSession } from './strategy-targets.js';

/** How a line was followed: its command's record (null when the line ran nothing seen), and whether it finished. */
interface LineOutcome {
  record: CommandRecord | null;
  finished: boolean;
}

/**
 * The run: waits for the prompt where one is coming, refuses a busy terminal,
 * queues the line for a shell still reading its startup files, else types it,
 * follows it and builds the result. The strategy decides each step (its
 * prompt, when a line may be typed, the line, its marks, how the prompt
 * settles, what a shell's exit leaves); the order is the same for all.
 */
export async function runInShell(strategy: ExecuteStrategy, session: RunSession, request: RunRequest): Promise<RunResult> {
  const { tracker } = session;
  await strategy.awaitPrompt(session, { deadline: request.deadline, shellStartMs: request.shellStartMs, startedAt: request.info().createdAt, signal: request.signal });
  const starting = strategy.starting(tracker);
  if (session.runQueued || (!starting && !strategy.readyToType(tracker)) || (starting && tracker.phase !== 'starting')) {
    const { state } = session.state();
    throw new TerminalToolError(
      'busy',
      `Terminal ${session.id} is busy (state: ${state}): a command is still running or a program has the terminal. Wait with terminal_wait, interrupt with terminal_send keys ["Ctrl-C"], or omit id to run in a new shell.`,
    );
  }
  if (starting) {
    // Still reading its startup files: typed now, the line would be echoed raw before readline takes over.
    session.typeWhenReady(request.command);
    return runResult(session, request.info(), 'running', null, { text: '', truncated: false, skipped: 0 }, undefined, request.started, request.caller);
  }

  // Back early when the command stops to ask this caller for input, whatever timeout_ms says.
  const asks = () => tracker.running !== null && session.attentionNewFor(request.caller);
  let line: LineOutcome;
  try {
    line = await followLine(strategy, session, request, asks);
  } catch (error) {
    throw fromPtyError(error);
  }
  const { record, finished } = line;

  const from = session.cursorOf(request.caller);
  const commandStart = record?.outputStart ?? session.safeEnd;
  const earlier = session.view.read(from, commandStart, Math.max(256, Math.floor(request.maxBytes / 4)));
  // The command's output is taken in this turn, with everything else the result says; a long one's windows
  // render in turns of their own (bench figure 8).
  const rendering = session.view.readInTurns(commandStart, record?.outputEnd ?? session.safeEnd, request.maxBytes, nextLoopTurn);
  session.advanceCursor(request.caller, record?.doneEnd ?? session.safeEnd);
  // The shell died under its command (`exit 3`): the command has no exit code of its own.
  const outcome = !finished
    ? asks()
      ? 'waiting_for_input'
      : 'running'
    : session.exited && (record === null || record.exitCode === null)
      ? 'shell_exited'
      : 'completed';
  // The terminal as it is in this turn; the output goes in once rendered.
  const told = runResult(
    session,
    request.info(),
    outcome,
    outcome === 'completed' ? (record?.exitCode ?? null) : null,
    { text: '', truncated: false, skipped: earlier.skipped },
    earlier.text.trim() === '' ? undefined : earlier.text,
    request.started,
    request.caller,
  );
  const own = await rendering;
  const text = outcome === 'shell_exited' ? strategy.outputOfShellExit(own.text) : own.text;
  const result: RunResult = { ...told, output: text, truncated: own.truncated, elapsed_ms: Date.now() - request.started };
  return request.finish(result);
}

/**
 * Types the strategy's line, follows the tracker its marks feed to the
 * command's end (or the line running nothing, the shell ending, the command
 * asking for input, the deadline), then lets the prompt settle.
 */
async function followLine(strategy: ExecuteStrategy, target: RunSession, request: RunRequest, asks: () => boolean): Promise<LineOutcome> {
  const { tracker } = target;
  const typedAt = target.end;
  target.typeLine(strategy.commandInput(request.command));
  const ours = () => tracker.commandAfter(typedAt);
  const stopFollowing = streamProgress(target, request.onProgress, () => {
    const current = ours();
    return current && { start: current.outputStart, end: current.outputEnd ?? target.safeEnd };
  });
  let finished: boolean;
  try {
    // Done when the line's command finished, the line ran nothing (a new prompt, no output), or the shell ended.
    const ended = () => target.exited || (tracker.phase !== 'typed' && tracker.running === null);
    await target.waitFor(() => ended() || asks(), Math.max(0, request.deadline - Date.now()), request.signal);
    finished = ended();
  } finally {
    stopFollowing();
  }
  if (finished && !target.exited) await strategy.settle(target, Math.min(strategy.settleMs, Math.max(0, request.deadline - Date.now())), request.signal);
  return { record: ours(), finished };
}
