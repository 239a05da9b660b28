// One ssh connection per remote: OpenSSH's connection sharing (ControlMaster), its control sockets in a private directory.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { assertPrivateDir } from '../common/private-paths.js';

/** The directory under ptydeck's state directory that holds the control sockets. */
const CONTROL_DIR = 'ssh';
/**
 * How long a master outlives its last session: long enough that `ls --remote`
 * run after `ls --remote`, or a panel reloaded, reuse it; short enough that a
 * remote no longer used leaves no ssh behind for long.
 */
export const CONTROL_PERSIST_SECONDS = 300;
/**
 * A Unix socket's path must fit sun_path (108 bytes with its NUL), and ssh
 * first binds a temporary name: the path, a dot and 16 random characters.
 */
const SUN_PATH_MAX = 107 - 17;

/**
 * The control socket for `destination` reached with `program`, or undefined
 * when sharing cannot be used (a state directory path too long for a socket,
 * or one ssh's config parser would split). The directory is made 0700 and
 * refused when another user could write it: whoever can connect to a master
 * runs commands on the remote as the developer. The name is a hash of the
 * program and destination (two ssh wrappers with their own configs never
 * share a master), so it is short, and holds no '%' for ssh to expand.
 */
export function controlPath(stateDir: string, program: string, destination: string): string | undefined {
  const dir = join(stateDir, CONTROL_DIR);
  const name = createHash('sha256').update(`${program}\0${destination}`).digest('hex').slice(0, 16);
  const path = join(dir, name);
  if (Buffer.byteLength(path) > SUN_PATH_MAX || /[\s"'%\\]/.test(path)) return undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    assertPrivateDir(dir, process.getuid?.(), { what: 'ssh control directory', risk: 'another user could run commands on your remotes through a shared ssh connection' });
  } catch {
    // Sharing saves a handshake; without a directory only we can use, each run connects on its own, as ssh does by default.
    return undefined;
  }
  return path;
}

/** ssh options that make the first connection to a remote its master and every later one a session of it. */
export function sharingOptions(path: string | undefined): string[] {
  if (path === undefined) return [];
  return ['-o', 'ControlMaster=auto', '-o', `ControlPath=${path}`, '-o', `ControlPersist=${CONTROL_PERSIST_SECONDS}`];
}
