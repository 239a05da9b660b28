import { fstatSync } from 'node:fs';

/**
 * What an output stream is and how much color it renders: used by the CLI
 * for its own output and reported to agents for each session. Depends on
 * nothing but Node built-ins so any part of ptydeck can use it.
 */
export type TerminalKind = 'tty' | 'pipe' | 'none';
export type ColorDepth = 'none' | 'basic' | '256' | 'truecolor';

export interface TerminalCapability {
  /** 'tty' for a terminal, 'pipe' for anything else that is open (pipe, file, socket), 'none' without a stream. */
  kind: TerminalKind;
  color: ColorDepth;
  /** Null when unknown (not a terminal and no COLUMNS/LINES). */
  columns: number | null;
  rows: number | null;
  /** Whether stdout and stderr reach the same target (as with `2>&1`), so interleaving is visible. */
  sharedStdoutStderr: boolean;
}

/** The parts of a stream we look at: process.stdout, a tty.WriteStream, or a plain object in tests. */
export interface StreamLike {
  isTTY?: boolean;
  columns?: number;
  rows?: number;
  fd?: number;
}

export type EnvLike = Record<string, string | undefined>;

export interface DetectOptions {
  /**
   * The stderr to compare with for `sharedStdoutStderr`. Default: fd 2 when
   * the stream is fd 1 (process.stdout), otherwise not shared.
   */
  stderr?: StreamLike | null;
  /** How to tell whether two fds reach one target. Default: same device and inode (fstat). */
  sameTarget?: (fdA: number, fdB: number) => boolean;
}

/**
 * Color precedence, first match wins:
 * 1. FORCE_COLOR decides outright: 0/false off; empty, 1 or true basic; 2 is 256; 3 truecolor.
 * 2. CLICOLOR_FORCE (set, not 0) forces color on, even for a pipe, at the depth COLORTERM/TERM advertise (at least basic).
 * 3. NO_COLOR (non-empty) and CLICOLOR=0 force it off.
 * 4. TERM=dumb is none.
 * 5. A tty renders at its advertised depth; a pipe (or no stream) renders none.
 */
export function detectColor(kind: TerminalKind, env: EnvLike): ColorDepth {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return forcedDepth(force);
  const clicolorForce = env.CLICOLOR_FORCE;
  if (clicolorForce !== undefined && clicolorForce !== '' && clicolorForce !== '0') {
    const advertised = advertisedDepth(env);
    return advertised === 'none' ? 'basic' : advertised;
  }
  if (env.NO_COLOR) return 'none';
  if (env.CLICOLOR === '0') return 'none';
  if (env.TERM === 'dumb') return 'none';
  return kind === 'tty' ? advertisedDepth(env) : 'none';
}

function forcedDepth(value: string): ColorDepth {
  switch (value.trim().toLowerCase()) {
    case '0':
    case 'false':
      return 'none';
    case '2':
      return '256';
    case '3':
      return 'truecolor';
    default:
      // '', '1', 'true', and anything unrecognized: the user asked for color.
      return 'basic';
  }
}

/** The depth COLORTERM and TERM claim. No TERM at all advertises nothing. */
export function advertisedDepth(env: EnvLike): ColorDepth {
  const colorterm = env.COLORTERM?.toLowerCase();
  if (colorterm === 'truecolor' || colorterm === '24bit') return 'truecolor';
  const term = env.TERM?.toLowerCase();
  if (!term || term === 'dumb') return 'none';
  if (term.endsWith('-direct') || term.includes('truecolor') || term.includes('24bit')) return 'truecolor';
  if (term.includes('256color')) return '256';
  return 'basic';
}

/** COLUMNS / LINES as a positive integer, or undefined when absent or malformed. */
function sizeOverride(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  const size = Number(value);
  return size > 0 ? size : undefined;
}

function fstatSameTarget(fdA: number, fdB: number): boolean {
  try {
    const a = fstatSync(fdA);
    const b = fstatSync(fdB);
    return a.dev === b.dev && a.ino === b.ino && a.rdev === b.rdev;
  } catch {
    return false;
  }
}

/** Describes `stream` (e.g. process.stdout) under `env` (e.g. process.env). */
export function detectCapability(stream: StreamLike | null | undefined, env: EnvLike, options: DetectOptions = {}): TerminalCapability {
  const kind: TerminalKind = !stream ? 'none' : stream.isTTY ? 'tty' : 'pipe';
  const ttyColumns = kind === 'tty' && stream?.columns ? stream.columns : null;
  const ttyRows = kind === 'tty' && stream?.rows ? stream.rows : null;
  const stderrFd = options.stderr === undefined ? (stream?.fd === 1 ? 2 : undefined) : options.stderr?.fd;
  const sameTarget = options.sameTarget ?? fstatSameTarget;
  const shared = stream?.fd !== undefined && stderrFd !== undefined && stream.fd !== stderrFd && sameTarget(stream.fd, stderrFd);
  return {
    kind,
    color: detectColor(kind, env),
    columns: sizeOverride(env.COLUMNS) ?? ttyColumns,
    rows: sizeOverride(env.LINES) ?? ttyRows,
    sharedStdoutStderr: shared,
  };
}

/**
 * The capability of a ptydeck PTY session, from its size and environment:
 * `callerEnv` is the env given to create(), `inheritedEnv` the service's base
 * environment. Mirrors how the service builds a session's environment: the
 * inherited COLUMNS/LINES are dropped, the caller's env is layered on top,
 * and TERM=xterm-256color and COLORTERM=truecolor are always set. A
 * session's stdout and stderr are both the PTY.
 */
export function ptySessionCapability(
  size: { cols: number; rows: number },
  callerEnv: EnvLike = {},
  inheritedEnv: EnvLike = process.env,
): TerminalCapability {
  const { COLUMNS: _columns, LINES: _lines, ...inherited } = inheritedEnv;
  const env: EnvLike = { ...inherited, ...callerEnv, TERM: 'xterm-256color', COLORTERM: 'truecolor' };
  return {
    kind: 'tty',
    color: detectColor('tty', env),
    columns: sizeOverride(env.COLUMNS) ?? size.cols,
    rows: sizeOverride(env.LINES) ?? size.rows,
    sharedStdoutStderr: true,
  };
}
