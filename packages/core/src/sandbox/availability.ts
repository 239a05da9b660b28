// Whether bubblewrap can build each profile's sandbox on this machine, and why not.
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { findExecutable } from '../common/executable.js';
import { beyondEverySandbox } from './policy.js';
import { realOr } from './real-paths.js';
import type { SandboxProfile } from './profile.js';

export type Availability = { ok: true; bwrap: string } | { ok: false; reason: string; fix: string };

/**
 * Tries the profile's namespaces for real (`bwrap … true`), since an installed
 * bwrap says nothing about whether user namespaces are allowed here. Cached per
 * profile for the process: a machine's kernel settings do not change under a host.
 */
export function sandboxAvailability(profile: Exclude<SandboxProfile, 'off'>, searchPath = process.env.PATH): Availability {
  const key = `${profile}\0${searchPath ?? ''}`;
  let known = cache.get(key);
  if (!known) {
    known = probe(profile, searchPath);
    cache.set(key, known);
  }
  return known;
}

const cache = new Map<string, Availability>();

function probe(profile: Exclude<SandboxProfile, 'off'>, searchPath: string | undefined): Availability {
  // bubblewrap runs outside the sandbox it builds, so it is taken only from a directory no sandboxed shell may write:
  // a project's bin on the host's PATH (direnv's PATH_add) let a shell plant a bwrap that the next host ran, unsandboxed.
  const home = realOr(homedir());
  const trusted = (searchPath ?? '/usr/local/bin:/usr/bin:/bin').split(':').filter((dir) => beyondEverySandbox(realOr(dir), home)).join(':');
  const found = findExecutable('bwrap', trusted, '/');
  if ('problem' in found) {
    return {
      ok: false,
      reason: 'bubblewrap (bwrap) is not installed, or only in a directory a sandboxed shell may write (a project\'s, HOME\'s own)',
      fix: process.platform === 'linux' ? 'install it (Debian/Ubuntu: `apt install bubblewrap`; Fedora: `dnf install bubblewrap`)' : 'sandboxed shells need Linux with bubblewrap',
    };
  }
  const bwrap = found.file;
  const net = profile === 'workspace' ? ['--share-net'] : [];
  const tried = spawnSync(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', ...net, '--die-with-parent', '--', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (tried.status === 0) return { ok: true, bwrap };
  const said = (tried.stderr || tried.error?.message || `exit ${tried.status}`).trim().split('\n')[0] ?? '';
  return {
    ok: false,
    reason: `bubblewrap could not create the sandbox: ${said}`,
    fix: /namespace|permission|Operation not permitted/i.test(said)
      ? 'allow unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1`, or on Ubuntu 24.04+ an AppArmor profile for bwrap: `sysctl kernel.apparmor_restrict_unprivileged_userns=0`)'
      : 'run `bwrap --ro-bind / / --unshare-all -- true` to see what fails',
  };
}
