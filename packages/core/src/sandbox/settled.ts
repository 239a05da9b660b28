// When what was read of a file or a directory may be remembered: its stamp, and whether it changed too recently to trust one.
import type { Stats } from 'node:fs';

/**
 * A file or directory changed this recently may change again within the same tick of the filesystem's
 * clock, leaving its stamp as it was: what was read of it is not remembered (git's "racily clean" entries).
 */
export const SETTLED_MS = 2000;

/**
 * What changes with every change of a file's content or a directory's entries: the device and inode (it
 * was replaced), the size, the modification time and the change time (which no one can set back, as
 * `touch` does the modification time). Times in milliseconds as doubles (a quarter of a microsecond
 * apart, at worst) are enough: only a settled read is remembered, so any later change is seconds on.
 */
export function stampOf(stat: Stats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

/** Whether `stat`'s last change is far enough behind `now` (Date.now()) that a later one would change its stamp. */
export function settled(stat: Stats, now: number): boolean {
  return now - stat.ctimeMs >= SETTLED_MS && now - stat.mtimeMs >= SETTLED_MS;
}
