// Paths as the sandbox's policy takes them: made real (links followed), kept only where they exist.
import { lstatSync, mkdirSync, realpathSync, type Dirent } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { listingOf } from './listings.js';

/** What is directly in `dir`; nothing where it cannot be read. */
export function direntsOf(dir: string): Dirent[] {
  return listingOf(dir) ?? [];
}

/**
 * Each of `paths` that exists, made real (or as given where that fails: a
 * dangling link). A path whose lstat fails cannot be made real either, so it
 * is dropped at once: most of the hidden list is missing on a machine, and a
 * thrown error per missing path cost more than the rest of a sandbox's policy.
 */
export function existingReal(paths: string[]): string[] {
  const found: string[] = [];
  for (const path of paths) {
    if (!exists(path)) continue;
    const real = realOr(path);
    if (real === path || exists(real)) found.push(real);
  }
  return found;
}

export function realOrThrow(path: string, what: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    throw new Error(`${what} ${path} does not exist`);
  }
}

/** `path` made real (links followed), or as given where that fails. */
export function realOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

export function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

export function ensureDir(path: string): string | null {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

export function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

/** `path` made real as far as it exists: a link among its ancestors cannot hide that it lies in a workspace. */
export function realAsFarAsItExists(path: string): string {
  const absolute = resolve(path);
  if (exists(absolute)) return realOr(absolute);
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(realAsFarAsItExists(parent), basename(absolute));
}
