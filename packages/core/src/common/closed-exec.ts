/**
 * Starts a program with no descriptor of ours but 0, 1 and 2.
 *
 * Node opens its own descriptors close-on-exec, but two kinds are not:
 * node-pty's terminal masters (forkpty does not set O_CLOEXEC, and Node has
 * no fcntl to set it) and whatever the host inherited from who launched it.
 * Every child would hold them: an ACP agent or ssh from child_process (libuv
 * closes nothing in the child), and a PTY's child whenever node-pty's own loop
 * stops early (it marks fds close-on-exec only up to the first one that is not
 * open, and another thread closing a file between fd-hygiene.ts's filling of
 * the gaps and the fork makes one). With another session's master a program
 * types into that session: an agent's shell into the developer's, or out of
 * its sandbox. Seen under load: a shell whose fd 255 was another terminal's
 * master, so bash's own terminal was 254.
 *
 * So the program is started through bash, in an empty environment (nothing
 * of the caller's reaches it: BASH_ENV, SHELLOPTS with PS4, exported
 * functions, GLOBIGNORE), which closes every descriptor above 2 and execs
 * env(1) with the caller's environment, which execs the program. The pid is
 * the program's throughout. It costs two execs, about a millisecond.
 */
import { accessSync, constants } from 'node:fs';

export interface Invocation {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * Why bash: `exec {n}>&-` closes any descriptor number; dash takes one digit.
 * A glob of /proc/self/fd lists what is open (its own directory descriptor is
 * closed by the time the loop runs, and closing a closed one is no error).
 */
const CLOSE_AND_EXEC = 'for f in /proc/self/fd/*; do n=${f##*/}; ((n > 2)) && exec {n}>&-; done; exec "$0" -i "$@"';

/** Only the system's own copies: a caller's PATH could name a planted bash. */
const BASH = ['/bin/bash', '/usr/bin/bash'];
const ENV = ['/usr/bin/env', '/bin/env'];

function firstExecutable(candidates: readonly string[]): string | null {
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // the next one
    }
  }
  return null;
}

let tools: { bash: string; env: string } | null | undefined;

/** The system's bash and env(1), looked up once; null without either (then children start as they are, see the caller). */
export function closingTools(): { bash: string; env: string } | null {
  if (tools === undefined) {
    const bash = firstExecutable(BASH);
    const env = firstExecutable(ENV);
    tools = bash && env ? { bash, env } : null;
  }
  return tools;
}

/**
 * How to run `file` with `args` and `env` so that it inherits no descriptor
 * but 0 to 2; null where this machine has no bash or env(1). A `file` without
 * a slash is looked up on `env`'s PATH, as execvp does.
 */
export function closedExec(file: string, args: readonly string[], env: Record<string, string | undefined>): Invocation | null {
  const found = closingTools();
  if (!found) return null;
  // env(1) would take either for one of its own arguments (a variable, an option).
  if (file.includes('=') || file.startsWith('-')) throw new Error(`cannot run '${file}': a program name with '=' in it, or starting with '-', is not supported`);
  const assignments: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    // A name with "=" cannot be one; env(1) would split it elsewhere.
    if (value === undefined || name === '' || name.includes('=')) continue;
    assignments.push(`${name}=${value}`);
  }
  return { file: found.bash, args: ['--norc', '--noprofile', '-c', CLOSE_AND_EXEC, found.env, ...assignments, file, ...args], env: {} };
}

/** `closedExec` for child_process.spawn: the wrapped invocation, or the program as it is where there is no bash or env(1). */
export function closedSpawn(file: string, args: readonly string[], env: Record<string, string | undefined>): { command: string; args: string[]; env: Record<string, string | undefined> } {
  const closed = closedExec(file, args, env);
  return closed ? { command: closed.file, args: closed.args, env: closed.env } : { command: file, args: [...args], env };
}
