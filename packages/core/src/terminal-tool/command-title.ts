/**
 * The title of a shell tab that an agent's terminal_run starts: the command it
 * runs, shortened to what a tab can show.
 */

/** A tab title from a command line: its first non-empty line, whitespace folded, at most 60 characters. */
export function titleOf(command: string): string {
  const line = command.split('\n').map((part) => part.trim()).find((part) => part !== '') ?? command.trim();
  const flat = line.replace(/\s+/g, ' ');
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}
