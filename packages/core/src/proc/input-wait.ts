import { procPids, readLink, readOptional, readStat } from './proc-fs.js';

/**
 * Asks the kernel whether a terminal's foreground program is blocked waiting
 * for the terminal's input, whatever its prompt says. Linux only: it reads
 * /proc (the terminal's foreground process group from the session leader's
 * stat, then each member's current system call); elsewhere it answers
 * `unsupported` and callers fall back to recognising prompts by their text.
 *
 * - `reading`: a foreground process is in read(2) on the terminal itself
 *   (`read -p`, `cat`, a password prompt): the kernel's strongest word.
 * - `polling`: a foreground process with the terminal open is asleep in
 *   poll, select or epoll (Python's input(), Node's readline). A server that
 *   listens for keyboard shortcuts looks the same, so callers should also ask
 *   for a prompt-like last line before they call this waiting.
 * - `busy`: the foreground is running, sleeping or waiting on something else.
 */
export type InputWait = { state: 'reading' | 'polling'; pid: number } | { state: 'busy' } | { state: 'unsupported' };

/** x86_64 and arm64 numbers of the system calls that mean "waiting for input". */
const SYSCALLS: Record<string, { read: number[]; poll: number[] }> = {
  x64: { read: [0, 19, 17, 295], poll: [7, 23, 232, 270, 271, 281, 441] },
  arm64: { read: [63, 65, 67, 69], poll: [72, 73, 22, 441] },
};

export function probeInputWait(sessionPid: number): InputWait {
  const calls = SYSCALLS[process.arch];
  if (process.platform !== 'linux' || !calls) return { state: 'unsupported' };
  const leader = readStat(sessionPid);
  const terminal = readLink(`/proc/${sessionPid}/fd/0`);
  if (!leader || !terminal || leader.tpgid <= 0) return { state: 'busy' };
  for (const pid of foregroundMembers(leader.tpgid, leader.sid)) {
    const syscall = readOptional(`/proc/${pid}/syscall`)?.trim().split(' ');
    if (!syscall || syscall[0] === 'running') continue;
    const nr = Number(syscall[0]);
    if (calls.read.includes(nr)) {
      const fd = Number.parseInt(syscall[1] ?? '', 16);
      if (Number.isInteger(fd) && readLink(`/proc/${pid}/fd/${fd}`) === terminal) return { state: 'reading', pid };
    } else if (calls.poll.includes(nr) && holdsTerminal(pid, terminal)) {
      return { state: 'polling', pid };
    }
  }
  return { state: 'busy' };
}

/** Processes of the foreground group, within the terminal's session. */
function foregroundMembers(pgid: number, sid: number): number[] {
  let pids: number[];
  try {
    pids = procPids();
  } catch {
    return [];
  }
  return pids.filter((pid) => {
    const stat = readStat(pid);
    return stat !== undefined && stat.pgrp === pgid && stat.sid === sid;
  });
}

/** Whether the process has the terminal open as its standard input. */
function holdsTerminal(pid: number, terminal: string): boolean {
  return readLink(`/proc/${pid}/fd/0`) === terminal;
}
