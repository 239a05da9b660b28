// Paths compared as strings, as the sandbox's rules name them (already real where it matters).
import { sep } from 'node:path';

/** Whether `path` is `dir` or lies beneath it. */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}
