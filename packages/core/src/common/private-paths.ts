// Refusing a directory or file of ptydeck's that another user owns or could change: the state directory, the session store.
import { statSync, type Stats } from 'node:fs';

/** A state directory, discovery file or store that someone other than this user (or root) could change. */
export class UnsafeStateError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnsafeStateError';
  }
}

/**
 * Refuses a directory of ptydeck's that someone other than this user (or
 * root) owns or could write; `what` names it and `risk` says what a writer
 * could do, in the error. Missing directories pass (the writer creates them
 * 0700); not checked without a uid (Windows).
 */
export function assertPrivateDir(path: string, uid: number | undefined, { what, risk }: { what: string; risk: string }): void {
  if (uid === undefined) return;
  const dir = statOrUndefined(() => statSync(path));
  if (!dir) return;
  if (!dir.isDirectory()) throw new UnsafeStateError(path, `ptydeck's ${what} ${path} is not a directory`);
  checkOwner(path, dir, uid, what);
  if ((dir.mode & 0o022) !== 0) {
    throw new UnsafeStateError(
      path,
      `ptydeck's ${what} ${path} is writable by other users (mode ${octal(dir.mode)}): ${risk}. Fix it with: chmod 700 ${shellQuote(path)}`,
    );
  }
}

export function statOrUndefined(stat: () => Stats): Stats | undefined {
  try {
    return stat();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function checkOwner(path: string, stats: Stats, uid: number, what: string): void {
  if (stats.uid === uid || stats.uid === 0) return;
  throw new UnsafeStateError(
    path,
    `ptydeck's ${what} ${path} belongs to another user (uid ${stats.uid}; you are uid ${uid}), who could replace what it says. Remove it, or set PTYDECK_STATE_DIR to a directory of your own`,
  );
}

export function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/** Quoted for a POSIX shell when it needs to be, so the fix can be pasted as is. */
export function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
