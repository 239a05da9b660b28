import { createContext, Script } from 'node:vm';

/**
 * Runs an agent's regular expression over terminal output within a time budget.
 *
 * Why: the pattern comes from the agent and the text from whatever runs in the
 * terminal. A pattern with nested quantifiers such as `(a+)+$` backtracks
 * exponentially on output like thirty a's and a '!', and V8 runs a regex to
 * completion on the calling thread, so a single terminal_wait froze the whole
 * core (every session, the panel, every other agent) for minutes. A script
 * run by node:vm with a timeout is interrupted mid-match (V8 checks for
 * interrupts while it backtracks); the cost is a watchdog per call, well under
 * a millisecond, paid only while a pattern wait sees new output.
 */
const sandbox = createContext({ regex: null as RegExp | null, text: '' });
const execScript = new Script('regex.exec(text)');

export class RegexTimeoutError extends Error {
  override readonly name = 'RegexTimeoutError';
}

/** regex.exec(text), or RegexTimeoutError once matching takes longer than `timeoutMs`. */
export function execWithin(regex: RegExp, text: string, timeoutMs: number): RegExpExecArray | null {
  sandbox.regex = regex;
  sandbox.text = text;
  try {
    return execScript.runInContext(sandbox, { timeout: timeoutMs }) as RegExpExecArray | null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new RegexTimeoutError(`matching took longer than ${timeoutMs} ms`);
    }
    throw error;
  } finally {
    sandbox.regex = null;
    sandbox.text = '';
  }
}
