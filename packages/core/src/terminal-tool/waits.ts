// What the terminal tool waits on: a command's end, exit, idle output, a pattern or a listening port.
import type { AgentTerminal } from './agent-terminal.js';
import type { CommandRecord } from './command-tracker.js';
import { processesKnown } from '../proc/proc-fs.js';
import { nextLoopTurn } from '../common/loop-turn.js';
import { TerminalToolError } from './errors.js';
import type { WaitInput } from './tool-schemas.js';

/** The last partial line carried between scans, so a match across chunks is found. */
const CARRY_BYTES = 4096;
/** How much raw output a pattern wait renders and scans in one turn: 64 KiB of colored lines render in 2 to 6 ms. */
const SCAN_PIECE_BYTES = 64 * 1024;

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
  listening: () => Promise<boolean>,
  deadline: number,
  signal?: AbortSignal,
  asks: InputInterrupt = never,
): Promise<WaitOutcome> {
  while (!signal?.aborted) {
    if (await listening()) return { reason: 'port' };
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

/** The text a pattern first matches in `text` (null: none); throws for a model when matching failed. */
export type PatternMatch = (text: string) => Promise<string | null>;

/**
 * Until the pattern matches plain-text output after `from`, scanning only what
 * is new each time, or the process exits. `match` runs the agent's pattern
 * (AgentPatterns: never unbounded on the loop); output arriving while it runs
 * is scanned together next.
 */
export async function waitForPattern(
  session: AgentTerminal,
  match: PatternMatch,
  from: number,
  deadline: number,
  signal?: AbortSignal,
  asks: InputInterrupt = never,
): Promise<WaitOutcome> {
  let scanned = from;
  let carry = '';
  while (!signal?.aborted) {
    const end = session.safeEnd;
    if (end > scanned) {
      // A long stretch (a wait called after its command printed MiBs: 4 MiB took 70 to 94 ms of CPU in one
      // turn, bench/probe-long-turns.mjs) is rendered and scanned a piece per turn, each ending at a line feed
      // where it has one, so a line's match is found as in one piece.
      const limit = Math.min(end, scanned + SCAN_PIECE_BYTES);
      const lineEnd = limit < end ? session.view.lineEnd(scanned, limit) : limit;
      const pieceEnd = lineEnd > scanned ? lineEnd : limit;
      const text = carry + session.renderText(scanned, pieceEnd);
      scanned = pieceEnd;
      // Marks and escape sequences alone render to nothing: no need to ask the pattern.
      if (text !== '') {
        const found = await match(text);
        if (found !== null) return { reason: 'pattern', match: found };
        carry = text.slice(text.lastIndexOf('\n') + 1).slice(-CARRY_BYTES);
      }
      if (pieceEnd < end) await nextLoopTurn();
      continue;
    }
    if (session.exited) return { reason: 'exit' };
    if (asks()) return { reason: 'waiting_for_input' };
    if (remaining(deadline) <= 0) break;
    await session.waitFor(() => session.safeEnd > scanned || session.exited || asks(), remaining(deadline), signal);
  }
  return { reason: 'timeout' };
}

function remaining(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}
