/**
 * The command line mark ptydeck's bash rcfile prints just before a line runs
 * (terminal-tool/shell-integration.ts), shaped as VS Code's OSC 633;E:
 *
 *   633;E;<line>;k=<key>;h=<0|1>;cwd=<dir>   (`;t=1` after the line when it was cut)
 *
 * The line and the cwd are escaped as VS Code escapes them: `\\` for a
 * backslash, `\xHH` for `;` and the control characters that would end or
 * break the sequence. The key is the shell's own (announced once as it
 * starts): a mark without it is output, not a command.
 */
import { MAX_COMMAND_CHARS } from '@ptydeck/contract';

export interface CommandLineMark {
  /** Null when the shell's history left the line out (h=0). */
  command: string | null;
  cwd: string | null;
  key: string | null;
}

export function parseCommandLineMark(payload: string): CommandLineMark | null {
  if (!payload.startsWith('633;E;')) return null;
  const [, , line = '', ...options] = payload.split(';');
  const option = (name: string) => options.find((part) => part.startsWith(`${name}=`))?.slice(name.length + 1);
  const cut = option('t') === '1';
  const inHistory = option('h') !== '0';
  const cwd = option('cwd');
  let command = inHistory ? unescapeMarkText(line) : null;
  if (command !== null && (cut || command.length > MAX_COMMAND_CHARS)) command = `${command.slice(0, MAX_COMMAND_CHARS)}…`;
  return { command, cwd: cwd === undefined || cwd === '' ? null : unescapeMarkText(cwd), key: option('k') ?? null };
}

/** Undoes the mark's escapes; an escape cut short (by the shell's length cap) is kept as it is. */
export function unescapeMarkText(text: string): string {
  return text.replace(/\\(\\|x[0-9a-fA-F]{2})/g, (_, escape: string) => (escape === '\\' ? '\\' : String.fromCharCode(parseInt(escape.slice(1), 16))));
}
