import { closeSync, openSync, readdirSync } from 'node:fs';

/**
 * Keeps our descriptors out of PTY children.
 *
 * node-pty 1.2.0-beta.15 closes inherited descriptors in the forked child
 * with close_range(CLOEXEC) when it was compiled with it; its Linux prebuild
 * was not, so it falls back to a loop that marks fds 3..15 close-on-exec and
 * then continues only until the first fd that is not open. Every fd above
 * the first gap survives exec unless it is already close-on-exec, and the
 * ones that are not are exactly the dangerous ones: other sessions' PTY
 * masters (forkpty does not set O_CLOEXEC) and descriptors the core itself
 * inherited from whoever launched it. A child could then write into another
 * session's terminal.
 *
 * So, right before each spawn, we fill every gap up to the highest open fd
 * with /dev/null (opened close-on-exec by Node), which lets that loop reach
 * every descriptor, and close the fillers right after the fork.
 */
const FIRST_UNCONDITIONAL_FD_LIMIT = 15;
/** Beyond this many fillers something is odd (a huge inherited fd number); give up rather than exhaust the fd limit. */
const MAX_FILLERS = 16_384;

export function fillDescriptorGaps(): () => void {
  if (process.platform !== 'linux') return () => {};
  let highest = -1;
  let open = 0;
  try {
    for (const name of readdirSync('/proc/self/fd')) {
      const fd = Number(name);
      if (fd > FIRST_UNCONDITIONAL_FD_LIMIT) open++;
      if (fd > highest) highest = fd;
    }
  } catch {
    return () => {};
  }
  const gaps = highest - FIRST_UNCONDITIONAL_FD_LIMIT - open;
  if (highest <= FIRST_UNCONDITIONAL_FD_LIMIT || gaps <= 0) return () => {};
  const fillers: number[] = [];
  try {
    // open() returns the lowest free fd, so fillers land in the gaps in order;
    // once one lands above `highest` the table is dense.
    while (fillers.length < MAX_FILLERS) {
      const fd = openSync('/dev/null', 'r');
      fillers.push(fd);
      if (fd >= highest) break;
    }
  } catch {
    // EMFILE: fill what we could.
  }
  return () => {
    for (const fd of fillers) closeSync(fd);
  };
}
