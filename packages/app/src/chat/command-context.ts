// A terminal command as context for a chat prompt: the command line, how it ended, and its output, capped.
import type { CommandRecord } from '@ptydeck/contract';

/** Output characters a command brings into a prompt at most: its head and tail around an omission line. */
export const MAX_CONTEXT_OUTPUT_CHARS = 8000;

/**
 * The text "Send to chat" adds to a prompt: the command, where it ran, how it
 * ended, then its output in a fence. Output over `max` characters keeps its
 * head and tail with an explicit omission line between.
 */
export function commandContext(record: Pick<CommandRecord, 'command' | 'cwd' | 'status' | 'exitCode' | 'signal'>, output: string, max = MAX_CONTEXT_OUTPUT_CHARS): string {
  const ended = record.status === 'running' ? 'still running' : record.status === 'lost' ? 'lost' : record.signal ? `killed by ${record.signal}` : `exit ${record.exitCode ?? '?'}`;
  const where = record.cwd ? ` in ${record.cwd}` : '';
  let shown = output;
  if (output.length > max) {
    const half = Math.floor(max / 2);
    shown = `${output.slice(0, half)}\n... ${output.length - 2 * half} characters omitted ...\n${output.slice(output.length - half)}`;
  }
  const line = record.command ?? '(command line not known)';
  // A fence longer than any run of backticks in the output or the command line (a heredoc spans lines),
  // so neither can close it.
  const longest = Math.max(2, ...[...`${line}\n${shown}`.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  return `Terminal command${where} (${ended}):\n${fence}\n$ ${line}\n${shown}\n${fence}`;
}
