import type { SessionInfo } from '@ptydeck/contract';
import { PtyError } from '../pty/types.js';
/**
 * Failures of the agent terminal tool. Each carries a code and a message
 * written for a model: what went wrong and what to do instead. The MCP layer
 * turns them into isError results that carry the message as their text (the
 * code is for ptydeck's own callers); nothing here is a protocol error.
 */
export type TerminalToolErrorCode =
  | 'no_such_terminal'
  | 'limit'
  | 'invalid_input'
  | 'busy'
  | 'not_a_shell'
  | 'exited'
  | 'spawn_failed'
  | 'input_backlog'
  | 'sandbox';

export class TerminalToolError extends Error {
  override readonly name = 'TerminalToolError';
  constructor(
    readonly code: TerminalToolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The same error for an unknown id and another client's id, so ids reveal nothing. */
export function noSuchTerminal(id: string): TerminalToolError {
  return new TerminalToolError(
    'no_such_terminal',
    `No such terminal: "${id}". It may have been closed or evicted; call terminal_list to see your terminals, or terminal_create to start one.`,
  );
}

/** A terminal that has exited (or was lost with an earlier host) cannot take input or run commands. */
export function terminalExited(info: SessionInfo): TerminalToolError {
  if (info.status === 'lost') {
    return new TerminalToolError(
      'exited',
      `Terminal ${info.id}'s process is gone: ptydeck's host stopped (killed, crashed or upgraded) while it ran, and this terminal is the record of what it printed until then. Nothing can be typed into it. Read it with terminal_read, remove it with terminal_close, or start another with terminal_create.`,
    );
  }
  const how = info.signal ? `signal ${info.signal}` : `exit code ${info.exitCode}`;
  return new TerminalToolError(
    'exited',
    `Terminal ${info.id} has exited (${how}). Read what it printed with terminal_read, close it with terminal_close, or start another with terminal_create.`,
  );
}

/** The PTY service's errors, in words a model can act on. */
export function fromPtyError(error: unknown): unknown {
  if (!(error instanceof PtyError)) return error;
  switch (error.code) {
    case 'session_limit':
      return new TerminalToolError('limit', `ptydeck cannot start another terminal: ${error.message}. Close one of yours with terminal_close.`);
    case 'input_backlog':
      return new TerminalToolError(
        'input_backlog',
        `${error.message}. The program is not reading what you type: wait for it (terminal_wait), or close the terminal with terminal_close.`,
      );
    case 'not_running':
      return new TerminalToolError('exited', `${error.message}. Read what it printed with terminal_read.`);
    case 'spawn_failed':
      return new TerminalToolError('spawn_failed', `Could not start the program: ${error.message}. Check the command name and that it is installed.`);
    default:
      return new TerminalToolError('invalid_input', error.message);
  }
}

/** Rethrows any failure but the session having exited already (for a close, that is done). */
export function unlessNotRunning(error: unknown): void {
  if (!(error instanceof PtyError && error.code === 'not_running')) throw error;
}
