// Runs a ptydeck command on a remote through OpenSSH: finds the remote's ptydeck, checks that it speaks our host protocol, runs it.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { closedSpawn } from '../common/closed-exec.js';
import { findExecutable } from '../common/executable.js';
import { packageVersion } from '../common/package-version.js';
import type { RemoteEntry } from './remotes-config.js';
import { controlPath, sharingOptions } from './ssh-control.js';
import { resolveStateDir } from '../common/discovery.js';
import { printable } from '../common/printable.js';

/** The ssh program to run; PTYDECK_SSH names another (a wrapper, a different build), as GIT_SSH does for git. */
export const SSH_PROGRAM_ENV = 'PTYDECK_SSH';

/** The remote script's exit codes when it did not run ptydeck (chosen far from any ptydeck or ssh code). */
const EXIT_MISSING = 87;
const EXIT_VERSION = 86;
const MARKER = 'ptydeck-remote:';

/**
 * Finds ptydeck where a non-interactive ssh session may not look (its PATH is
 * sshd's default, not the login shell's): PATH, then the login shell's
 * `command -v`, then the usual install prefixes. The directory it is found in
 * (or the login shell's PATH) goes in front of PATH, since the launcher's
 * `#!/usr/bin/env node` needs node, which an nvm or volta install keeps beside it.
 * It checks with `--version` before running anything that the remote runs this
 * very package version (and so this host protocol), so an old ptydeck starts no
 * old host: the protocol alone says nothing of the subcommands a remote run
 * uses (`mcp --agent-key-stdin`, `panel-channel`), which came within one
 * protocol. Written for /bin/sh, in single quotes: no single quote inside, and
 * on one line.
 */
const FIND_SCRIPT = [
  'w=$1; x=$2; shift 2;',
  'p=$(command -v ptydeck 2>/dev/null); t="PATH ($PATH)";',
  'case "$p" in /*) ;; *) p="";; esac;',
  'if [ -z "$p" ] && [ -n "$SHELL" ] && [ -x "$SHELL" ]; then',
  't="$t, $SHELL -lc \\"command -v ptydeck\\"";',
  'p=$("$SHELL" -lc "command -v ptydeck" </dev/null 2>/dev/null | tail -n 1);',
  'case "$p" in /*) PATH=$("$SHELL" -lc "printf %s \\"\\$PATH\\"" </dev/null 2>/dev/null | tail -n 1):$PATH;; *) p="";; esac;',
  'fi;',
  'for d in "$HOME/.local/bin" "$HOME/.npm-global/bin" "$HOME/.volta/bin" "$HOME/bin" /usr/local/bin /opt/homebrew/bin /usr/bin "$HOME"/.nvm/versions/node/*/bin; do',
  '[ -n "$p" ] && break;',
  't="$t, $d";',
  'if [ -f "$d/ptydeck" ] && [ -x "$d/ptydeck" ]; then p=$d/ptydeck; fi;',
  'done;',
  `if [ -z "$p" ]; then echo "${MARKER} missing $t" >&2; exit ${EXIT_MISSING}; fi;`,
  'PATH=$(dirname "$p"):$PATH; export PATH;',
  'v=$("$p" --version 2>&1 </dev/null | head -n 1);',
  `case "$v" in "ptydeck $x (host protocol $w)") ;; *) echo "${MARKER} version $p: $v" >&2; exit ${EXIT_VERSION};; esac;`,
  'exec "$p" "$@"',
  // One line: a csh login shell refuses a quoted string with newlines in it.
].join(' ');

/** Arguments the remote shell reads as plain words: no quoting, so none can smuggle in shell syntax. */
const WORD = /^[A-Za-z0-9._:=/-]+$/;

export interface RemoteRunOptions {
  /** Give the remote command a terminal (`ssh -t`), for `attach` in a terminal. */
  tty?: boolean;
  /** No prompt for a password or a host key: nobody could answer it (an agent's stdio). */
  batch?: boolean;
  stdio?: StdioOptions;
  env?: Record<string, string | undefined>;
  /** ptydeck's state directory, where the ssh control sockets are (default: the one `env` names). */
  stateDir?: string;
}

/** The ssh program `env` names (PTYDECK_SSH) or ssh. */
export function sshProgram(env: Record<string, string | undefined>): string {
  return env[SSH_PROGRAM_ENV] || 'ssh';
}

/**
 * How to start ssh with `args`, given only sshEnv's variables and holding no descriptor of the host's
 * (closed-exec.ts): a ControlPersist master lives on, and would keep every session's terminal master open.
 * Not found, it is started as named, so the spawn's ENOENT says so.
 */
export function sshCommand(env: Record<string, string | undefined>, args: readonly string[]): { command: string; args: string[]; env: Record<string, string | undefined> } {
  const program = sshProgram(env);
  const given = sshEnv(env);
  const found = findExecutable(program, given.PATH, process.cwd());
  return 'file' in found ? closedSpawn(found.file, args, given) : { command: program, args: [...args], env: given };
}

/**
 * The control socket every ssh run for `remote` shares (ssh-control.ts), so a
 * remote is one connection whatever runs on it: each panel's channel, `ls`,
 * `attach`, `mcp --remote` and the port forwards.
 */
export function remoteControlPath(remote: RemoteEntry, options: Pick<RemoteRunOptions, 'env' | 'stateDir'> = {}): string | undefined {
  const env = options.env ?? process.env;
  return controlPath(options.stateDir ?? resolveStateDir(env), sshProgram(env), remote.destination);
}

/**
 * The argv for ssh: the destination as one element after `--`, so no remote
 * name can become an option; no agent or X11 forwarding and no forwardings a
 * config file adds (nothing of this machine's reaches the remote), and
 * keepalives so a dropped network is noticed in seconds, not at TCP's pace.
 */
export function sshArgs(remote: RemoteEntry, ptydeckArgs: string[], options: Pick<RemoteRunOptions, 'tty' | 'batch'> & { controlPath?: string } = {}): string[] {
  for (const arg of ptydeckArgs) if (!WORD.test(arg)) throw new Error(`cannot pass '${arg}' to the remote ptydeck: expected letters, digits and . _ : = / -`);
  const version = packageVersion();
  if (!WORD.test(version)) throw new Error(`cannot check the remote's version against '${version}'`);
  const command = `/bin/sh -c '${FIND_SCRIPT}' ptydeck-remote ${HOST_PROTOCOL_VERSION} ${version} ${ptydeckArgs.join(' ')}`.trimEnd();
  return [
    options.tty ? '-t' : '-T',
    '-a',
    '-x',
    '-o', 'ClearAllForwardings=yes',
    '-o', 'PermitLocalCommand=no',
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=3',
    '-o', 'ConnectTimeout=10',
    ...(options.batch ? ['-o', 'BatchMode=yes'] : []),
    ...sharingOptions(options.controlPath),
    '--',
    remote.destination,
    command,
  ];
}

/** Variables ssh itself needs (finding keys, an agent, a password prompt, the terminal type); ssh forwards what it is given per SendEnv, so it is given nothing else. */
const SSH_ENV = ['HOME', 'USER', 'LOGNAME', 'PATH', 'SSH_AUTH_SOCK', 'SSH_ASKPASS', 'SSH_ASKPASS_REQUIRE', 'DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'KRB5CCNAME', 'TERM'];

export function sshEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(SSH_ENV.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]!]])));
}

/** Starts `ptydeck <args>` on the remote through ssh. Its stderr carries the script's verdict: read it with RemoteVerdict. */
export function spawnRemote(remote: RemoteEntry, ptydeckArgs: string[], options: RemoteRunOptions = {}): ChildProcess {
  const env = options.env ?? process.env;
  const shared = remoteControlPath(remote, options);
  const ssh = sshCommand(env, sshArgs(remote, ptydeckArgs, { ...options, ...(shared ? { controlPath: shared } : {}) }));
  const child = spawn(ssh.command, ssh.args, {
    stdio: options.stdio ?? ['pipe', 'pipe', 'pipe'],
    env: ssh.env,
  });
  // A session of a shared connection: ssh handed our pipes to the master, which keeps them after this
  // process is killed, so 'close' would wait for the remote command. Dropping our ends closes the
  // streams now, and the master's next write to them fails, which ends that session there.
  child.once('exit', (_code, signal) => {
    if (signal === null) return;
    child.stdout?.destroy();
    child.stderr?.destroy();
  });
  return child;
}

/**
 * Reads a remote run's stderr: the script's one line (why ptydeck did not
 * run) is kept for `failure`; every other line is passed to `passOn`. Both are
 * the box's to write (anything of the remote user's can put a `ptydeck` first
 * in its PATH), and both end up on the developer's terminal: their control
 * characters are spaces, so no OSC 52, title or report request gets through.
 */
export class RemoteVerdict {
  private marker: string | undefined;
  private partial = '';

  constructor(
    private readonly remote: RemoteEntry,
    private readonly passOn: (line: string) => void,
  ) {}

  /** Feeds stderr bytes. */
  write(chunk: Buffer | string): void {
    const lines = (this.partial + chunk.toString()).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line.replace(/\r$/, ''));
  }

  /** Ends the stream: a last line without its newline still counts. */
  end(): void {
    if (this.partial) this.line(this.partial.replace(/\r$/, ''));
    this.partial = '';
  }

  private line(raw: string): void {
    const line = printable(raw);
    if (line.startsWith(MARKER) && this.marker === undefined) this.marker = line.slice(MARKER.length).trim();
    else if (line !== '') this.passOn(line);
  }

  /**
   * Why ptydeck did not run on the remote, in one line, for an exit code the
   * script gives; undefined when it ran (or ssh failed: ssh said why itself).
   */
  failure(code: number | null): string | undefined {
    if (code === EXIT_MISSING && this.marker?.startsWith('missing ')) return missingLine(this.remote, this.marker.slice('missing '.length));
    if (code === EXIT_VERSION && this.marker?.startsWith('version ')) return versionLine(this.remote, this.marker.slice('version '.length));
    return undefined;
  }
}

/** How to put this very version on the remote, as the README's install says. */
function installHint(remote: RemoteEntry): string {
  const version = packageVersion();
  return `install ptydeck ${version} there: \`npm run pack\` in a ptydeck checkout, \`scp ptydeck-${version}.tgz ${remote.destination}:\`, then \`ssh ${remote.destination} npm install -g --prefix ~/.local ./ptydeck-${version}.tgz\``;
}

function missingLine(remote: RemoteEntry, tried: string): string {
  return `no ptydeck on remote '${remote.name}' (${remote.destination}); looked in ${tried}: ${installHint(remote)}`;
}

function versionLine(remote: RemoteEntry, text: string): string {
  const at = text.indexOf(': ');
  const path = at === -1 ? text : text.slice(0, at);
  const said = at === -1 ? '' : text.slice(at + 2);
  const ours = `this ptydeck is ${packageVersion()} (host protocol ${HOST_PROTOCOL_VERSION})`;
  const theirs = /^ptydeck \S+ \(host protocol \d+\)$/.test(said) ? `is ${said.slice('ptydeck '.length)}` : `did not run (${said || 'no output'})`;
  return `the ptydeck on remote '${remote.name}' (${path}) ${theirs}; ${ours}: ${installHint(remote)}`;
}
