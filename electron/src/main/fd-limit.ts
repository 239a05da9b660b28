// Raises Electron's open-descriptor limit as node does at start: the core in this process needs one per PTY, log
// and socket.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface FdLimitDeps {
  /** Electron's process.setFdLimit (macOS and Linux): raises the soft limit, never past the hard one. */
  setFdLimit: ((maxDescriptors: number) => void) | undefined;
  platform: NodeJS.Platform;
  /** /proc/self/limits on Linux. */
  readProcLimits?: () => string;
  /** `ulimit -Hn` from a shell, which inherits this process's limits: elsewhere on POSIX. */
  shellHardLimit?: () => string;
}

/**
 * Raises the soft limit on open descriptors to the hard limit, as `node`
 * itself does at start (so `ptydeck serve` and `ptydeck mcp` get it for
 * free). Electron initialises its Node without that step, and Chromium
 * raises the soft limit only to 8192; every panel, agent connection, PTY
 * and log file of the core in this process costs descriptors. Returns the
 * limit asked for, or undefined when there is nothing to do (Windows has no
 * such limit) or the hard limit is unlimited or unknown (macOS often reports
 * unlimited, and refuses a soft limit above kern.maxfilesperproc: Chromium's
 * 8192 stays).
 */
export function raiseFdLimit(deps: FdLimitDeps): number | undefined {
  if (deps.platform === 'win32' || !deps.setFdLimit) return undefined;
  const hard = deps.platform === 'linux' ? hardFromProc((deps.readProcLimits ?? readOwnLimits)()) : hardFromShell(deps.shellHardLimit ?? askShell);
  if (hard === undefined) return undefined;
  deps.setFdLimit(hard);
  return hard;
}

/** The hard column of "Max open files" in /proc/self/limits. */
export function hardFromProc(limits: string): number | undefined {
  const line = limits.split('\n').find((l) => l.startsWith('Max open files'));
  const hard = line?.trim().split(/\s+/)[4];
  return hard !== undefined && /^\d+$/.test(hard) ? Number(hard) : undefined;
}

function hardFromShell(ask: () => string): number | undefined {
  try {
    const text = ask().trim();
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

function readOwnLimits(): string {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return '';
  }
}

function askShell(): string {
  return spawnSync('/bin/sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8', timeout: 2000 }).stdout ?? '';
}
