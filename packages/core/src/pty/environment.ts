// A session's environment: inherited, the caller's, its terminal's, and the session id its programs can find.
import type { SessionId } from '@ptydeck/contract';

import { isLoaderVar } from '../common/closed-exec.js';
import { HOST_ID_ENV, SESSION_ID_ENV, SESSION_KEY_ENV, type EnvLike } from '../common/env-names.js';

export type { EnvLike } from '../common/env-names.js';

/**
 * Variables dropped from the inherited environment: they describe the
 * terminal ptydeck itself runs in, not the session's terminal, and stale
 * COLUMNS/LINES would override the real (resizable) PTY size in most programs.
 */
const INHERITED_TERMINAL_VARS = ['COLUMNS', 'LINES', 'TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION'];

/**
 * A session's environment, in precedence order: the inherited one, then the
 * caller's, then what the session's terminal is (TERM, COLORTERM), a UTF-8
 * LANG when none is set, the session id so programs can find their tab, and
 * the labels that say whose its processes are (session-labels.ts).
 */
export function buildSessionEnv(
  inherited: EnvLike,
  callerEnv: Record<string, string> | undefined,
  label: { id: SessionId; host: string; key: string },
): Record<string, string> {
  const env = definedEnv(inherited);
  for (const key of INHERITED_TERMINAL_VARS) delete env[key];
  if (callerEnv) Object.assign(env, callerEnv);
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  if (!env.LANG) env.LANG = 'C.UTF-8';
  env[SESSION_ID_ENV] = label.id;
  env[HOST_ID_ENV] = label.host;
  env[SESSION_KEY_ENV] = label.key;
  return env;
}

/** The variables of `env` that are set. */
export function definedEnv(env: EnvLike): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined) defined[key] = value;
  }
  return defined;
}

/**
 * The dynamic loader's variables (isLoaderVar): a launcher that confines the
 * session's program (bubblewrap) runs outside the confinement, so it starts
 * without them and hands them on to the program itself (confine's
 * `loaderEnv`): the caller names them, and a library the confined program
 * wrote must not load outside it. This is `env` split into the launcher's
 * part and those.
 */
export function splitLoaderEnv(env: Record<string, string>): { launcher: Record<string, string>; loader: Record<string, string> } {
  const launcher: Record<string, string> = {};
  const loader: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) (isLoaderVar(name) ? loader : launcher)[name] = value;
  return { launcher, loader };
}
