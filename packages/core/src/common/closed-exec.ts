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
 * So the program is started through the system's bash, which closes every
 * descriptor above 2 and execs it: the pid is the program's throughout, and
 * it costs one exec, about a millisecond. The environment stays where it was
 * (never on a command line, which every user can read in /proc), and bash
 * runs privileged (`-p`): it reads no BASH_ENV, imports no function and
 * ignores SHELLOPTS, BASHOPTS, CDPATH and GLOBIGNORE, so a caller's
 * environment (an agent's `terminal_create` env, outside its sandbox) cannot
 * run code in it or keep it from closing. Nor can the dynamic loader's
 * variables, which bash itself would load with: it starts without them, and
 * they are put back for the program (LOADER). They reach the program as given,
 * but for SHELLOPTS (it would say "privileged"), which is not passed on, and
 * those CARRIED below.
 */
import { accessSync, constants } from 'node:fs';

export interface Invocation {
  file: string;
  args: string[];
  env: Record<string, string | undefined>;
}

/**
 * Variables of the environment that this bash would not pass on as given: a
 * non-interactive bash drops PS1 and PS2 and resets IFS, OPTERR and OPTIND,
 * privileged mode resets PS4, and bash drops OLDPWD. Each goes past it in a
 * variable of ours and is put back just before the exec (none is expanded
 * here: xtrace is never on). Bash's own dynamic ones (RANDOM, LINENO, PPID,
 * BASHPID and the like) are not carried; no environment means them.
 */
const CARRIED = ['PS1', 'PS2', 'PS4', 'IFS', 'OLDPWD', 'OPTERR', 'OPTIND'];
const carrier = (name: string) => `PTYDECK_EXEC_${name}`;

/**
 * The dynamic loader's variables (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, ...)
 * and glibc's module path: they load code into whatever program starts with
 * them, and this bash is a program that starts holding the descriptors it is
 * there to close. So they are carried past it as CARRIED are (before, an
 * agent's LD_PRELOAD ran its library in this bash, which held another
 * session's terminal master). A name that is no shell identifier names no
 * loader variable and could not be put back: it is dropped.
 */
export function isLoaderVar(name: string): boolean {
  return name.startsWith('LD_') || name === 'GCONV_PATH';
}
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Puts `name` back from its carrier, if the caller gave it. `name` is an identifier (IDENTIFIER). Unset first:
 * bash declares OPTIND an integer, and assigning to an integer evaluates the value as arithmetic, where
 * `a[$(cmd)]` runs cmd. An agent's `OPTIND` in terminal_create's env ran its command here, outside the sandbox
 * whose launcher this bash starts (sandbox/sandboxed-shells.test.ts). Unset, it is a plain variable again.
 */
const restore = (name: string) => `if [[ -n \${${carrier(name)}+set} ]]; then unset ${name}; export ${name}=$${carrier(name)}; unset ${carrier(name)}; fi`;
/** Would only make bash complain (an fd it closed) and is not passed on. */
const DROPPED = ['BASH_XTRACEFD'];

/**
 * Why bash: `exec {n}>&-` closes any descriptor number; dash takes one digit.
 * A glob of /proc/self/fd lists what is open (its own directory descriptor is
 * closed by the time the loop runs, and closing a closed one is no error);
 * without /proc it matches nothing. The program is $1, not $0.
 */
const closeAndExec = (carried: readonly string[]) =>
  [
    'shopt -s nullglob',
    'for f in /proc/self/fd/*; do n=${f##*/}; ((n > 2)) && exec {n}>&-; done',
    'export -n SHELLOPTS BASHOPTS',
    ...carried.map(restore),
    'exec -- "$@"',
  ].join('\n');
const CLOSE_AND_EXEC = closeAndExec(CARRIED);

/** Only the system's own copies: a caller's PATH could name a planted bash. */
const BASH = ['/bin/bash', '/usr/bin/bash'];

let bash: string | null | undefined;

/** The system's bash, looked up once; null without one (then children start as they are, see the callers). */
export function systemBash(): string | null {
  if (bash === undefined) {
    bash = null;
    for (const file of BASH) {
      try {
        accessSync(file, constants.X_OK);
        bash = file;
        break;
      } catch {
        // the next one
      }
    }
  }
  return bash;
}

/**
 * How to run `file` with `args` and `env` so that it inherits no descriptor
 * but 0 to 2; null where this machine has no bash. A `file` without a slash
 * is looked up on `env`'s PATH, as execvp does.
 */
export function closedExec(file: string, args: readonly string[], env: Record<string, string | undefined>): Invocation | null {
  const found = systemBash();
  if (!found) return null;
  const given: Record<string, string | undefined> = { ...env };
  for (const name of [...CARRIED, ...DROPPED]) {
    const value = given[name];
    if (value === undefined) continue;
    delete given[name];
    if (CARRIED.includes(name)) given[carrier(name)] = value;
  }
  const loader: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!isLoaderVar(name) || value === undefined) continue;
    delete given[name];
    if (!IDENTIFIER.test(name)) continue;
    given[carrier(name)] = value;
    loader.push(name);
  }
  return {
    file: found,
    // Long options first: bash takes none after a short one.
    args: ['--norc', '--noprofile', '-p', '-c', loader.length ? closeAndExec([...CARRIED, ...loader]) : CLOSE_AND_EXEC, 'ptydeck-exec', file, ...args],
    env: given,
  };
}

/** `closedExec` for child_process.spawn: the wrapped invocation, or the program as it is where there is no bash. */
export function closedSpawn(file: string, args: readonly string[], env: Record<string, string | undefined>): { command: string; args: string[]; env: Record<string, string | undefined> } {
  const closed = closedExec(file, args, env);
  return closed ? { command: closed.file, args: closed.args, env: closed.env } : { command: file, args: [...args], env };
}
