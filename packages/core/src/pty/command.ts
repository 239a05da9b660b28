// Resolves what a session runs before spawning, so a missing command fails with an error instead of a dead tab.
import path from 'node:path';
import { findExecutable } from '../common/executable.js';
import { PtyError } from './types.js';

/**
 * Finds the file execvp would run for `command`, or throws a spawn_failed
 * PtyError. node-pty forks before exec, so a command that cannot be executed
 * would otherwise surface as a session that prints "execvp(3) failed" and
 * exits 1: checking first turns it into a typed error at create().
 */
export function resolveExecutable(command: string, searchPath: string | undefined, cwd: string): string {
  const found = findExecutable(command, searchPath, cwd);
  if ('problem' in found) throw new PtyError('spawn_failed', `cannot run command '${command}': ${found.problem}`);
  return found.file;
}

/** The user's shell: $SHELL when it can be run, else bash, else sh. */
export function resolveShell(env: Record<string, string | undefined>, cwd: string): string {
  const shell = env.SHELL;
  if (shell && path.isAbsolute(shell) && 'file' in findExecutable(shell, undefined, '/')) return shell;
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
