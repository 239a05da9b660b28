import { isLive, procPids, readOptional, readStat } from '../proc/proc-fs.js';

/**
 * Every live process whose environment says it belongs to session `id`, read
 * from /proc as a developer would, apart from the scan under test.
 */
export function carrying(id: string): number[] {
  return procPids().filter((pid) => {
    if (!running(pid)) return false;
    return (readOptional(`/proc/${pid}/environ`) ?? '').split('\0').includes(`PTYDECK_SESSION_ID=${id}`);
  });
}

/** Whether `pid` runs (not a zombie). */
export function running(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && isLive(stat);
}
