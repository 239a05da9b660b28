// `ptydeck remote add|ls|rm`, and `ls` and `attach` with --remote: the remote's own ptydeck run through ssh.
import { resolveConfigDir } from '../common/config-dir.js';
import { addRemote, findRemote, readRemotes, removeRemote, type RemoteEntry } from '../remote/remotes-config.js';
import { RemoteVerdict, spawnRemote } from '../remote/ssh-launch.js';
import type { CliIo } from './cli-io.js';
import { OutputFilter } from './output-filter.js';
import { styleFor } from './style.js';
import { EXIT_FAILURE, EXIT_OK } from '../common/exit-codes.js';

/** `ptydeck remote add|ls|rm`, as cli/remote-args.ts parses it. */
export type RemoteCommand =
  | { kind: 'remote-add'; name: string; destination: string }
  | { kind: 'remote-ls'; json: boolean }
  | { kind: 'remote-rm'; name: string }
  | { kind: 'help'; topic: 'remote' };

/** ssh's own exit code when it failed (could not connect, or the connection dropped); any other is the remote command's. */
const SSH_FAILED = 255;
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5000;

export async function runRemoteCommand(command: Exclude<RemoteCommand, { kind: 'help' }>, io: CliIo): Promise<number> {
  const configDir = resolveConfigDir();
  switch (command.kind) {
    case 'remote-add': {
      // Adding a name that exists replaces its destination: say so, or the old one is gone without a word.
      const before = readRemotes(configDir).find((remote) => remote.name === command.name)?.destination;
      addRemote(configDir, { name: command.name, destination: command.destination });
      const was = before !== undefined && before !== command.destination ? ` (it was ${before})` : '';
      io.stdout.write(`remote '${command.name}' is ${command.destination}${was}; try \`ptydeck ls --remote ${command.name}\`\n`);
      return EXIT_OK;
    }
    case 'remote-ls': {
      const remotes = readRemotes(configDir);
      if (command.json) io.stdout.write(`${JSON.stringify(remotes.map((r) => ({ name: r.name, destination: r.destination })))}\n`);
      else if (remotes.length === 0) io.stdout.write('no remotes; add one with `ptydeck remote add NAME user@host`\n');
      else {
        const width = Math.max(4, ...remotes.map((r) => r.name.length));
        io.stdout.write(`${'NAME'.padEnd(width)}  DESTINATION\n${remotes.map((r) => `${r.name.padEnd(width)}  ${r.destination}\n`).join('')}`);
      }
      return EXIT_OK;
    }
    case 'remote-rm':
      if (!removeRemote(configDir, command.name)) {
        io.stderr.write(`ptydeck remote rm: no remote named '${command.name}'\n`);
        return EXIT_FAILURE;
      }
      io.stdout.write(`forgot remote '${command.name}' (its ptydeck and sessions there keep running)\n`);
      return EXIT_OK;
  }
}

/** `ptydeck ls --remote NAME`: the remote's `ptydeck ls`, its output as it prints it. */
export async function runRemoteLs(command: { json: boolean; remote: string }, io: CliIo): Promise<number> {
  const remote = findRemote(resolveConfigDir(), command.remote);
  const run = await runOnce(remote, ['ls', ...(command.json ? ['--json'] : [])], io, false);
  return report(run, remote, io);
}

/**
 * `ptydeck attach --remote NAME <id>`: the remote's `ptydeck attach` in a
 * terminal ssh gives it. When the link drops after it showed something, it
 * says so and reconnects with backoff; the new attach draws the session's
 * screen as it is now, then streams again.
 */
export async function runRemoteAttach(command: { target: string; write: boolean; remote: string }, io: CliIo): Promise<number> {
  const remote = findRemote(resolveConfigDir(), command.remote);
  const args = ['attach', ...(command.write ? ['--write'] : []), command.target];
  let delay = BACKOFF_FIRST_MS;
  let attached = false;
  let failed = 0;
  for (;;) {
    const run = await runOnce(remote, args, io, Boolean(process.stdin.isTTY));
    // 255: ssh lost the connection, or could not make one; no code: ssh itself was killed. Either way the remote
    // attach may still be there. Once it was, a reconnect that cannot reach the box yet (the network still down,
    // the laptop just awake) is retried as the panel's and an agent's links are, until Ctrl-C; only a first
    // connection that fails is an error.
    attached ||= run.spoke;
    if ((run.code !== SSH_FAILED && run.code !== null) || !attached) return report(run, remote, io);
    if (run.spoke) {
      // It was attached again: a later drop starts over from the short wait.
      delay = BACKOFF_FIRST_MS;
      failed = 0;
      io.stderr.write(`${styleFor(io.stderr).red(`ptydeck: the link to ${remote.name} dropped; reconnecting to ${remote.name}… (Ctrl-C gives up)`)}\n`);
    } else {
      failed++;
      io.stderr.write(`ptydeck: ${remote.name} cannot be reached yet; trying again in ${(delay / 1000).toFixed(1)} s (${failed} failed, Ctrl-C gives up)\n`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, BACKOFF_MAX_MS);
  }
}

interface RemoteRun {
  code: number | null;
  /** Whether the remote command wrote anything (it ran: a later drop is worth reconnecting). */
  spoke: boolean;
  failure: string | undefined;
}

function runOnce(remote: RemoteEntry, args: string[], io: CliIo, tty: boolean): Promise<RemoteRun> {
  const child = spawnRemote(remote, args, { tty, stdio: ['inherit', 'pipe', 'pipe'] });
  // Each line the box's ptydeck or ssh wrote names the box, as `mcp --remote`'s do: "start one with `ptydeck`" or
  // "no session matches" is about that machine, not this one.
  const verdict = new RemoteVerdict(remote, (line) => io.stderr.write(`${remote.name}: ${line}\n`));
  // The box's ptydeck may be anything its user put first in PATH: what it prints is drawn as attach draws a session (no OSC 52, title or report request).
  const filter = new OutputFilter();
  let spoke = false;
  child.stdout!.on('data', (chunk: Buffer) => {
    spoke = true;
    io.stdout.write(filter.filter(chunk));
  });
  child.stderr!.on('data', (chunk: Buffer) => verdict.write(chunk));
  return new Promise((resolve) => {
    child.once('error', (error) => {
      verdict.end();
      io.stderr.write(`ptydeck: cannot run ssh: ${error.message}\n`);
      resolve({ code: SSH_FAILED, spoke: false, failure: undefined });
    });
    child.once('close', (code) => {
      verdict.end();
      resolve({ code, spoke, failure: verdict.failure(code) });
    });
  });
}

function report(run: RemoteRun, remote: RemoteEntry, io: CliIo): number {
  if (run.failure) {
    io.stderr.write(`${styleFor(io.stderr).red(`ptydeck: ${run.failure}`)}\n`);
    return EXIT_FAILURE;
  }
  if (run.code === SSH_FAILED) {
    io.stderr.write(`${styleFor(io.stderr).red(`ptydeck: ssh could not reach remote '${remote.name}' (${remote.destination}); see ssh's message above`)}\n`);
    return EXIT_FAILURE;
  }
  return run.code ?? EXIT_FAILURE;
}
