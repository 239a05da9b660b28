// Finds the running ptydeck host, proven to be it, or starts one detached: every client's way in.
import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { readDiscovery, resolveStateDir, type DiscoveryRecord } from '../common/discovery.js';
import { newChallenge, PROOF_PATH, proofHolds } from '../common/server-proof.js';
import { ptydeckLauncher } from '../common/mcp-launch.js';
import { hostLockHolder } from '../common/host-lock.js';
import { STOP_PATH } from '../common/stop-protocol.js';
import { isProcessAlive, waitForExit } from '../common/process-identity.js';
import { HOST_NODE_FLAGS, withHostAllocator } from '../common/host-node-flags.js';
import { checkHostProcess } from './host-check.js';
import { askHostForRecord } from './record-back.js';
import { requestJson } from './host-request.js';
import { withoutInjection } from '../common/inherited-env.js';
import { CHAT_BINDING_ENV, CHAT_ID_ENV, SESSION_ID_ENV } from '../common/env-names.js';
import { homeDirectory } from '../common/home-dir.js';

const PROBE_MS = 1500;
/** Start-up of a host takes well under a second; a shutting-down one may take the kill grace (3 s) plus reaping. */
const DEFAULT_DEADLINE_MS = 15_000;
const POLL_MS = 50;
/** An idle host stops at once: it has no session to end. */
const RETIRE_WAIT_MS = 5000;
/** host.log is rotated once past this, at a start. */
const LOG_ROTATE_BYTES = 1024 * 1024;

export interface EnsureHostOptions {
  stateDir?: string;
  log: (line: string) => void;
  /** Start a host when none runs (default). False: join a running one (a busy one asked again until the deadline), or fail at once when none runs. */
  start?: boolean;
  /** The caller says itself that it started the host (`ptydeck` does, on stdout): no log line for the start. */
  quietStart?: boolean;
  deadlineMs?: number;
}

export function hostLogPath(stateDir: string): string {
  return join(stateDir, 'host.log');
}

/** A host this client cannot work with: the one line says both protocol numbers and what to do. */
export class HostProtocolError extends Error {
  override readonly name = 'HostProtocolError';
}

/**
 * The running ptydeck host for the state directory, proven to be it, started
 * detached when none runs. Concurrent callers may each start one: the host
 * lock lets one live and the others exit, and every caller ends up with the
 * one that lives. A discovery file or lock left by a dead host is passed over
 * at once (the kernel says the pid is gone), never waited on.
 */
export async function ensureHost(options: EnsureHostOptions): Promise<{ record: DiscoveryRecord; started: boolean }> {
  const stateDir = options.stateDir ?? resolveStateDir();
  const deadline = Date.now() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS);
  let child: StartedHost | undefined;
  /** Records whose server failed the proof: asked once, never again (a foreign process learns as little as possible). */
  const unproven = new Set<string>();
  const reported = new Set<string>();
  const reportOnce = (key: string, line: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    options.log(line);
  };
  /** Whether the lock's holder was asked to write its record back (record-back.ts): once per call. */
  let askedForRecord = false;
  for (;;) {
    /** A host the kernel shows on its port that did not answer in time: busy, or on a loaded machine; asked again. */
    let silent = false;
    // Throws on a state directory others could write: a planted record is never followed.
    const found = readDiscovery(stateDir);
    /** The record leads to no host: gone, not a record, a dead pid, nothing of ours on its port, a token the host does not hold. */
    let astray = found.status !== 'live';
    // The token too: a record written back after a wrong one (record-back.ts) keeps the instance and url.
    const key = found.status === 'live' ? `${found.record.instance} ${found.record.url} ${found.record.token}` : '';
    if (found.status === 'live' && !unproven.has(key)) {
      // The kernel first: the file, the lock and /proof's answer are all things an agent's shell can make.
      const check = checkHostProcess(found.record, stateDir);
      if (check.kind === 'refused') throw new UntrustedHostError(found.record, check.reason);
      const proof = check.kind === 'absent' ? { answered: false, reason: `is not the host (${check.reason})` } : await proveHost(found.record);
      if (proof === true) {
        if (found.record.protocol === HOST_PROTOCOL_VERSION) return { record: found.record, started: child !== undefined };
        // An older host nobody would miss steps aside; any other mismatch is the one line that says what to do.
        if (!(options.start !== false && found.record.protocol < HOST_PROTOCOL_VERSION && (await retireIdleHost(found.record)))) {
          throw protocolMismatch(found.record);
        }
        options.log(`ptydeck: stopped an older ptydeck host (pid ${found.record.pid}, host protocol ${found.record.protocol}) that ran nothing`);
        continue;
      }
      // A wrong answer is final; silence may be a host too busy to answer in time, asked again next round.
      if (proof.answered) unproven.add(key);
      else silent = check.kind !== 'absent';
      astray = check.kind === 'absent' || proof.answered;
      reportOnce(key, `ptydeck: ${found.record.url} ${proof.reason}; looking for the host that holds ${stateDir}`);
    } else if (found.status === 'invalid') {
      reportOnce(found.reason, `ptydeck: ignoring ${found.path}: ${found.reason}`);
    }
    const holder = hostLockHolder(stateDir);
    // A live host holds the lock, and the record does not lead to it (rewritten, removed, opened to others): asked, found
    // through the kernel, to write its own back, which is read again and checked as any. Before, every client refused
    // or waited out its deadline until the developer restarted the host, ending every live session.
    if (astray && holder?.pid !== undefined && !askedForRecord) {
      askedForRecord = true;
      if (await askHostForRecord(holder.pid)) continue;
    }
    // Joining only: none running fails at once, but a running host too busy to answer one probe in 1.5 s is asked
    // again until the deadline (at load 20, one of attach.test.ts's `ptydeck ls` runs said none ran while one did).
    if (options.start === false && !silent) throw new Error(`no running ptydeck host answers for ${stateDir}`);
    if (options.start !== false && !holder && !child) {
      child = await startHostDetached(stateDir);
      if (!options.quietStart) options.log(`ptydeck: no ptydeck host was running; started one (pid ${child.pid ?? '?'}, log ${hostLogPath(stateDir)})`);
    } else if (!holder && child && (child.pid === undefined || !isProcessAlive(child.pid))) {
      throw new Error(`the ptydeck host exited at start${child.failure ? ` (${child.failure})` : ''}; see ${hostLogPath(stateDir)}${logTail(stateDir)}`);
    }
    if (Date.now() > deadline) {
      const who = holder
        ? `the host (pid ${holder.pid ?? '?'}) holds ${stateDir} but`
        : silent && found.status === 'live'
          ? `the ptydeck host at ${found.record.url} (pid ${found.record.pid})`
          : 'no ptydeck host';
      throw new Error(`${who} did not answer within ${Math.round((options.deadlineMs ?? DEFAULT_DEADLINE_MS) / 1000)} s; see ${hostLogPath(stateDir)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Whether the server named in the record is that ptydeck: it must answer a
 * fresh challenge with its HMAC under the token, before the token is sent. A
 * process that took over the port (the pid reused) learns nothing from it.
 * True, or why not and whether it answered at all.
 */
export async function proveHost(record: Pick<DiscoveryRecord, 'url' | 'token'>): Promise<true | { answered: boolean; reason: string }> {
  const challenge = newChallenge();
  try {
    const url = new URL(PROOF_PATH, record.url);
    url.searchParams.set('challenge', challenge);
    const response = await requestJson(url, { timeoutMs: PROBE_MS });
    const answer = response.status === 200 ? (response.body as { proof?: unknown } | undefined) : undefined;
    if (proofHolds(record.token, challenge, answer?.proof)) return true;
    return { answered: true, reason: `did not prove it is the ptydeck host (answered ${response.status}); not sending it anything` };
  } catch (error) {
    return { answered: false, reason: `is not answering (${(error as Error).message})` };
  }
}

/**
 * Asks an older host to stop if nothing runs in it (no session, no chat), and
 * waits for it to be gone. False when it runs something, refuses, or predates
 * /stop: then it is left alone.
 */
async function retireIdleHost(record: DiscoveryRecord): Promise<boolean> {
  try {
    const response = await requestJson(new URL(`${STOP_PATH}?ifIdle=1`, record.url), { method: 'POST', timeoutMs: PROBE_MS });
    return response.status >= 200 && response.status < 300 && (await waitForExit(record.pid, RETIRE_WAIT_MS));
  } catch {
    return false;
  }
}

/** A server the kernel says is not the developer's host (host-check.ts): the one line says what it is and what to do. */
export class UntrustedHostError extends Error {
  override readonly name = 'UntrustedHostError';
  constructor(record: Pick<DiscoveryRecord, 'url'>, reason: string) {
    super(
      `not connecting to the ptydeck host at ${record.url}: ${reason}. It may be a process an agent's shell started in the host's place; ` +
        'sending it nothing. If so, end that process, then run ptydeck again from a terminal of your own',
    );
  }
}

/** Throws UntrustedHostError unless the kernel vouches for the record's server or cannot say (host-check.ts). */
export function assertTrustedHost(record: Pick<DiscoveryRecord, 'url' | 'pid'>, stateDir: string): void {
  const check = checkHostProcess(record, stateDir);
  if (check.kind === 'refused') throw new UntrustedHostError(record, check.reason);
}

function protocolMismatch(record: DiscoveryRecord): HostProtocolError {
  const fix =
    record.protocol < HOST_PROTOCOL_VERSION
      ? 'run `ptydeck stop` (it ends the sessions in it), then try again'
      : 'use the newer ptydeck that started it, or run `ptydeck stop` (it ends the sessions in it) and try again';
  return new HostProtocolError(
    `the running ptydeck host (pid ${record.pid}) speaks host protocol ${record.protocol}, this ptydeck speaks ${HOST_PROTOCOL_VERSION}: ${fix}`,
  );
}

/** A host this client started: its pid, or why there is none. */
interface StartedHost {
  pid: number | undefined;
  failure?: string;
}

/**
 * Spawns `ptydeck host` (argv[1]) with the node flags after it
 * (HOST_NODE_FLAGS) detached, reports its pid on stdout and exits: run as
 * `node -e`, so that the host is adopted by init (or the nearest subreaper)
 * the moment this exits, and is no child of the client.
 */
const DETACH_SCRIPT = `
const host = require('node:child_process').spawn(process.execPath, [...process.argv.slice(2), process.argv[1], 'host'], { detached: true, stdio: ['ignore', 2, 2] });
host.once('error', (error) => { process.stderr.write('ptydeck: cannot start the host: ' + error.message + '\\n'); process.exit(1); });
if (host.pid !== undefined) { host.unref(); process.stdout.write(String(host.pid), () => process.exit(0)); }
`;

/**
 * `ptydeck host` detached: in a POSIX session of its own (setsid), adopted by
 * init through a short-lived middle process, its stdio the log file and
 * nothing of ours, so the caller's exit, its terminal's hang-up or its crash
 * does not reach it, and clients can tell it from a process an agent's shell
 * started (host-check.ts): started from an agent's `ptydeck mcp`, it is still
 * no descendant of that agent's session. It starts in the home directory so
 * that it holds no project directory busy.
 */
async function startHostDetached(stateDir: string): Promise<StartedHost> {
  // Loaded here, not with the module: most clients join a running host and start nothing (bench figure 12).
  const { spawn } = await import('node:child_process');
  const logFd = openLog(stateDir);
  try {
    const middle = spawn(process.execPath, ['-e', DETACH_SCRIPT, ptydeckLauncher(), ...HOST_NODE_FLAGS], {
      stdio: ['ignore', 'pipe', logFd],
      cwd: homeDirectory(),
      env: hostEnv(stateDir),
    });
    let out = '';
    middle.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const failure = await new Promise<string | undefined>((resolve) => {
      middle.once('error', (error) => resolve(error.message));
      middle.once('close', (code, signal) => resolve(code === 0 ? undefined : signal ? `signal ${signal}` : `exit code ${code}`));
    });
    const pid = /^\d+$/.test(out) ? Number(out) : undefined;
    return failure === undefined && pid !== undefined ? { pid } : { pid: undefined, failure: failure ?? 'no pid reported' };
  } finally {
    closeSync(logFd);
  }
}

/**
 * The client's environment for the host, without ptydeck's own variables (a
 * host serves every client, not the chat or session this one was started
 * from, and must not carry a session's label) and without the variables that
 * would run code in it (NODE_OPTIONS, LD_PRELOAD, ...): the client may be an
 * agent's `ptydeck mcp`.
 */
function hostEnv(stateDir: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...withoutInjection(process.env), PTYDECK_STATE_DIR: stateDir };
  // The client's own ties: a host serves every client, not the chat or session this one was started from.
  for (const label of [SESSION_ID_ENV, CHAT_ID_ENV, CHAT_BINDING_ENV, 'PTYDECK_HOST_ID', 'PTYDECK_SESSION_KEY']) delete env[label];
  // In the desktop app the runtime is Electron's binary, which runs a script as Node only when told to.
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  // The host's allocator settings, which it takes out of what its sessions inherit once started.
  return withHostAllocator(env);
}

function openLog(stateDir: string): number {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const path = hostLogPath(stateDir);
  try {
    if (statSync(path).size > LOG_ROTATE_BYTES) renameSync(path, `${path}.old`);
  } catch {
    // No log yet.
  }
  const fd = openSync(path, 'a', 0o600);
  // A log made by hand or by an older ptydeck: what a host writes is nobody else's business.
  if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  return fd;
}

/** The end of host.log, for an error that says why the host did not start. */
function logTail(stateDir: string): string {
  try {
    const lines = readFileSync(hostLogPath(stateDir), 'utf8').trimEnd().split('\n').slice(-5);
    return lines.length > 0 && lines[0] !== '' ? `:\n  ${lines.join('\n  ')}` : '';
  } catch {
    return '';
  }
}
