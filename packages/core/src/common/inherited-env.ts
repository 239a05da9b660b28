// What of a client's environment may reach the host or a session: never ptydeck's own labels, never a way to run code.
import type { EnvLike } from './env-names.js';

/**
 * Variables that make a shell, the dynamic loader or a runtime run code or
 * change what a command does, before or around what the user types. Whoever
 * starts the host chooses its environment, and that may be an agent's shell:
 * none of these crosses from a client to the host or from the host to a
 * session. Names ending in `*` are prefixes.
 */
export const INJECTION_VARS: readonly string[] = [
  // bash and sh startup files and hooks
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  'PS0',
  'PS1',
  'PS2',
  'PS4',
  'SHELLOPTS',
  'BASHOPTS',
  'BASH_XTRACEFD',
  'BASH_FUNC_*', // exported functions override commands
  'IFS',
  'CDPATH',
  'INPUTRC', // readline macros can type commands
  'ZDOTDIR', // zsh's startup files
  // the dynamic loader and glibc's module paths
  'LD_*',
  'GCONV_PATH',
  // runtimes that load code named in the environment
  'NODE_OPTIONS',
  'NODE_PATH',
  'ELECTRON_RUN_AS_NODE',
  'PYTHONSTARTUP',
  'PYTHONINSPECT',
  'PERL5OPT',
  'RUBYOPT',
  // git runs configured commands (pager, fsmonitor, hooks path) from these
  'GIT_CONFIG_*',
  'GIT_EXEC_PATH',
];

function matches(name: string, list: readonly string[]): boolean {
  return list.some((entry) => (entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry));
}

/** The environment without the injection vectors (INJECTION_VARS). */
export function withoutInjection(env: EnvLike): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !matches(name, INJECTION_VARS)) kept[name] = value;
  }
  return kept;
}

/**
 * A client's environment as sessions may inherit it: without the injection
 * vectors and without any of ptydeck's own variables (a session's or a chat's
 * label, a client's settings), which describe that client, not the session.
 */
export function sessionInheritable(env: EnvLike): Record<string, string> {
  const kept = withoutInjection(env);
  for (const name of Object.keys(kept)) if (name.startsWith('PTYDECK_')) delete kept[name];
  return kept;
}

/** /proc/<pid>/environ's text (NUL-separated NAME=value) as an object; the first of a repeated name wins, as getenv does. */
export function parseEnviron(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of text.split('\0')) {
    const equals = entry.indexOf('=');
    if (equals <= 0) continue;
    const name = entry.slice(0, equals);
    if (!(name in env)) env[name] = entry.slice(equals + 1);
  }
  return env;
}
