// Finding the file execvp would run: the PTY service checks a session's command with it, `ptydeck sandbox check` looks for bwrap.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** The file execvp would run for `command` (searching `searchPath` unless it names a path), or why there is none. */
export function findExecutable(command: string, searchPath: string | undefined, cwd: string): { file: string } | { problem: string } {
  if (command.includes('/')) {
    const file = path.resolve(cwd, command);
    const problem = executableProblem(file);
    return problem ? { problem } : { file };
  }
  for (const dir of (searchPath ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    // An empty PATH entry means the current directory, as in execvp.
    const file = path.resolve(cwd, dir || '.', command);
    if (!executableProblem(file)) return { file };
  }
  return { problem: 'not found on PATH' };
}

function executableProblem(file: string): string | null {
  let stats;
  try {
    stats = statSync(file);
  } catch {
    return `${file} does not exist`;
  }
  if (!stats.isFile()) return `${file} is not a file`;
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return `${file} is not executable`;
  }
  return null;
}
