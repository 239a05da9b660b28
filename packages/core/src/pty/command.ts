// Resolves what a session runs before spawning, so a missing command fails with an error instead of a dead tab.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { PtyError } from './types.js';

/**
 * Finds the file execvp would run for `command`, or throws a spawn_failed
 * PtyError. node-pty forks before exec, so a command that cannot be executed
 * would otherwise surface as a session that prints "execvp(3) failed" and
 * exits 1: checking first turns it into a typed error at create().
 */
export function resolveExecutable(command: string, searchPath: string | undefined, cwd: string): string {
  if (command.includes('/')) {
    const file = path.resolve(cwd, command);
    const problem = executableProblem(file);
    if (problem) throw new PtyError('spawn_failed', `cannot run command '${command}': ${problem}`);
    return file;
  }
  for (const dir of (searchPath ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    // An empty PATH entry means the current directory, as in execvp.
    const file = path.resolve(cwd, dir || '.', command);
    if (!executableProblem(file)) return file;
  }
  throw new PtyError('spawn_failed', `cannot run command '${command}': not found on PATH`);
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

/** The user's shell: $SHELL when it can be run, else bash, else sh. */
export function resolveShell(env: Record<string, string | undefined>, cwd: string): string {
  const shell = env.SHELL;
  if (shell && path.isAbsolute(shell) && !executableProblem(shell)) return shell;
  for (const candidate of ['bash', 'sh']) {
    try {
      return resolveExecutable(candidate, env.PATH, cwd);
    } catch {
      // try the next one
    }
  }
  return '/bin/sh';
}

/** Args for a login shell: `-l` exactly once, first. */
export function loginShellArgs(args: readonly string[]): string[] {
  return ['-l', ...args.filter((arg) => arg !== '-l')];
}
