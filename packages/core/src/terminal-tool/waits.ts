// What the terminal tool waits on: a command's end, exit, idle output, a pattern or a listening port.
import type { AgentTerminal } from './agent-terminal.js';
import { execWithin, RegexTimeoutError } from './bounded-regex.js';
import type { CommandRecord } from './command-tracker.js';
import { processesKnown } from '../proc/session-processes.js';
import { TerminalToolError } from './errors.js';
import type { WaitInput } from './tool-schemas.js';

/** Longest one pattern match may run over new output before the wait gives up on the pattern. */
export const PATTERN_BUDGET_MS = 500;
/** The last partial line carried between scans, so a match across chunks is found. */
const CARRY_BYTES = 4096;

export interface WaitOutcome {
  reason: 'exit' | 'idle' | 'pattern' | 'port' | 'waiting_for_input' | 'timeout';
  match?: string;
}

/** What every wait also stops for: the program asking the caller for input it has not been told of. */
export type InputInterrupt = () => boolean;

const never: InputInterrupt = () => false;

/** Until `running` finishes (a command in a shell) or, without one, the process exits. */
export async function waitForExit(
  session: AgentTerminal,
  running: CommandRecord | null,
  deadline: number,
  signal?: AbortSignal,
  asks: InputInterrupt = never,
): Promise<WaitOutcome> {
  const done = () => session.exited || (running !== null && running.outputEnd !== null);
  await session.waitFor(() => done() || asks(), remaining(deadline), signal);
  return { reason: done() ? 'exit' : asks() ? 'waiting_for_input' : 'timeout' };
}

/** Until no output has arrived for `idleMs` (counting from the call), or the process exits. */
export async function waitForIdle(
  session: AgentTerminal,
  idleMs: number,
  started: number,
  deadline: number,
  signal?: AbortSignal,
  asks: InputInterrupt = never,
): Promise<WaitOutcome> {
  while (!signal?.aborted) {
    const quietFor = Date.now() - Math.max(session.lastDataAt, started);
    if (session.exited) return { reason: 'exit' };
    if (asks()) return { reason: 'waiting_for_input' };
    if (quietFor >= idleMs) return { reason: 'idle' };
    if (remaining(deadline) <= 0) break;
    const before = session.end;
    await session.waitFor(() => session.end > before || session.exited || asks(), Math.min(remaining(deadline), idleMs - quietFor), signal);
  }
  return { reason: 'timeout' };
}

/** How often a port wait asks the kernel: no event says a socket started listening. */
export const PORT_POLL_MS = 250;

/**
 * Until `listening()` finds the port (checked now and every PORT_POLL_MS:
 * the scan runs only while such a wait is pending), or the process exits.
 */
export async function waitForPort(
  session: AgentTerminal,
  listening: () => boolean,
  deadline: number,
  signal?: AbortSignal,
  asks: InputInterrupt = never,
): Promise<WaitOutcome> {
  while (!signal?.aborted) {
    if (listening()) return { reason: 'port' };
    if (session.exited) return { reason: 'exit' };
    if (asks()) return { reason: 'waiting_for_input' };
    if (remaining(deadline) <= 0) break;
    await session.waitFor(() => session.exited || asks(), Math.min(PORT_POLL_MS, remaining(deadline)), signal);
  }
  return { reason: 'timeout' };
}

/** terminal_send returns once output has been quiet this long. */
const SEND_QUIET_MS = 200;

/**
 * After input: until output that followed it goes quiet, a command it
 * started ends at the prompt, the process exits, or the deadline passes.
 */
export async function waitForQuiet(session: AgentTerminal, sentAt: number, commandsBefore: number, deadline: number, signal?: AbortSignal): Promise<void> {
  while (Date.now() < deadline && !session.exited && !signal?.aborted) {
    const sawOutput = session.end > sentAt;
    if (sawOutput && session.tracker.commandsDone > commandsBefore && session.tracker.atPrompt) return;
    const endBefore = session.end;
    const window = sawOutput ? Math.min(SEND_QUIET_MS, remaining(deadline)) : remaining(deadline);
    await session.waitFor(() => session.end > endBefore || session.exited, window, signal);
    if (sawOutput && session.end === endBefore) return;
  }
}

/** until "port" needs /proc; `port` goes with it only. */
export function checkPortWait(until: WaitInput['until'], port: number | undefined): void {
  if (port !== undefined && until !== 'port') throw new TerminalToolError('invalid_input', 'port goes with until "port" only.');
  if (until === 'port' && !processesKnown()) {
    throw new TerminalToolError('invalid_input', 'until "port" needs Linux /proc, which this system does not have: wait with until "pattern" for the line the server prints once it listens.');
  }
}

/** Compiles the agent's pattern, with an error it can act on. */
export function compilePattern(pattern: string | undefined): RegExp {
  if (pattern === undefined || pattern === '') {
    throw new TerminalToolError('invalid_input', 'until "pattern" needs a pattern: a JavaScript regular expression such as "Listening on port \\d+".');
  }
  try {
    return new RegExp(pattern, 'm');
  } catch (error) {
    throw new TerminalToolError(
      'invalid_input',
      `Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}. Escape special characters such as ( [ . * + ? with a backslash.`,
    );
  }
}

/**
 * Until `regex` matches plain-text output after `from`, scanning only what is
 * new each time (within a time budget per scan: the pattern is the agent's,
 * the text anyone's), or the process exits.
 */
export async function waitForPattern(
  session: AgentTerminal,
  regex: RegExp,
  from: number,
  deadline: number,
  signal?: AbortSignal,
  asks: InputInterrupt = never,
): Promise<WaitOutcome> {
  let scanned = from;
  let carry = '';
  let tooSlow = false;
  let match: string | undefined;
  const check = () => {
    const end = session.safeEnd;
    if (end <= scanned) return false;
    const text = carry + session.renderText(scanned, end);
    scanned = end;
    let found: RegExpExecArray | null;
    try {
      found = execWithin(regex, text, PATTERN_BUDGET_MS);
    } catch (error) {
      if (!(error instanceof RegexTimeoutError)) throw error;
      tooSlow = true;
      return true;
    }
    if (found) {
      match = found[0];
      return true;
    }
    carry = text.slice(text.lastIndexOf('\n') + 1).slice(-CARRY_BYTES);
    return false;
  };
  const ok = await session.waitFor(() => check() || session.exited || asks(), remaining(deadline), signal);
  if (tooSlow) {
    throw new TerminalToolError(
      'invalid_input',
      `The pattern ${JSON.stringify(regex.source)} took more than ${PATTERN_BUDGET_MS} ms to match this terminal's output, so the wait was stopped: nested quantifiers such as (a+)+ backtrack exponentially. Use a simpler pattern, e.g. a literal piece of the line you expect.`,
    );
  }
  if (!ok) return { reason: 'timeout' };
  if (match !== undefined) return { reason: 'pattern', match };
  return session.exited ? { reason: 'exit' } : { reason: 'waiting_for_input' };
}

function remaining(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}
