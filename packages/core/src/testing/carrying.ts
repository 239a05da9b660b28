import { procPids, readOptional } from '../proc/proc-fs.js';

/**
 * Every live process whose environment says it belongs to session `id`, read
 * from /proc as a developer would, apart from the scan under test.
 */
export function carrying(id: string): number[] {
  return procPids().filter((pid) => {
    const stat = readOptional(`/proc/${pid}/stat`);
    if (!stat || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
    return (readOptional(`/proc/${pid}/environ`) ?? '').split('\0').includes(`PTYDECK_SESSION_ID=${id}`);
  });
}

/** Whether `pid` runs (not a zombie). */
export function running(pid: number): boolean {
  const stat = readOptional(`/proc/${pid}/stat`);
  return stat !== undefined && !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
}
