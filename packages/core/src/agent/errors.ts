/**
 * Failures of the agent terminal tool. Each carries a code and a message
 * written for a model: what went wrong and what to do instead. The MCP layer
 * turns them into isError results; nothing here is a protocol error.
 */
export type TerminalToolErrorCode =
  | 'no_such_terminal'
  | 'limit'
  | 'invalid_input'
  | 'busy'
  | 'not_a_shell'
  | 'exited'
  | 'spawn_failed';

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
