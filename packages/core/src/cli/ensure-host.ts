// Finds the running ptydeck host, proven to be it, or starts one detached: every client's way in.
import { spawn } from 'node:child_process';
import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { readDiscovery, resolveStateDir, type DiscoveryRecord } from '../server/discovery.js';
import { newChallenge, PROOF_PATH, proofHolds } from '../server/server-proof.js';
import { ptydeckLauncher } from '../server/mcp-launch.js';
import { hostLockHolder } from '../host/host-lock.js';
import { STOP_PATH } from '../host/stop-protocol.js';
import { waitForExit } from '../server/process-identity.js';

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
  /** Start a host when none runs (default). False: join a running one or fail at once. */
  start?: boolean;
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
  let child: { pid: number | undefined; exit?: string } | undefined;
  /** Records whose server failed the proof: asked once, never again (a foreign process learns as little as possible). */
  const unproven = new Set<string>();
  const reported = new Set<string>();
  const reportOnce = (key: string, line: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    options.log(line);
  };
  for (;;) {
    // Throws on a state directory others could write: a planted record is never followed.
    const found = readDiscovery(stateDir);
    const key = found.status === 'live' ? `${found.record.instance} ${found.record.url}` : '';
    if (found.status === 'live' && !unproven.has(key)) {
      const proof = await proveHost(found.record);
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
      reportOnce(key, `ptydeck: ${found.record.url} ${proof.reason}; looking for the host that holds ${stateDir}`);
    } else if (found.status === 'invalid') {
      reportOnce(found.reason, `ptydeck: ignoring ${found.path}: ${found.reason}`);
    }
    const holder = hostLockHolder(stateDir);
    if (options.start === false) throw new Error(`no running ptydeck host answers for ${stateDir}`);
    if (!holder && !child) {
      child = startHostDetached(stateDir);
      options.log(`ptydeck: no ptydeck host was running; started one (pid ${child.pid ?? '?'}, log ${hostLogPath(stateDir)})`);
    } else if (!holder && child?.exit !== undefined) {
      throw new Error(`the ptydeck host exited at start (${child.exit}); see ${hostLogPath(stateDir)}${logTail(stateDir)}`);
    }
    if (Date.now() > deadline) {
      const who = holder ? `the host (pid ${holder.pid ?? '?'}) holds ${stateDir} but` : 'no ptydeck host';
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
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_MS) });
    const answer = response.ok ? ((await response.json().catch(() => null)) as { proof?: unknown } | null) : null;
    if (!response.ok) await response.body?.cancel();
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
    const response = await fetch(new URL(`${STOP_PATH}?ifIdle=1`, record.url), { method: 'POST', signal: AbortSignal.timeout(PROBE_MS) });
    await response.body?.cancel();
    return response.ok && (await waitForExit(record.pid, RETIRE_WAIT_MS));
  } catch {
    return false;
  }
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

/**
 * `ptydeck host` in a session of its own (setsid), its stdio the log file and
 * nothing of ours, unreferenced: the caller's exit, its terminal's hang-up or
 * its crash does not reach it. It starts in the home directory so that it
 * holds no project directory busy.
 */
function startHostDetached(stateDir: string): { pid: number | undefined; exit?: string } {
  const logFd = openLog(stateDir);
  try {
    const child = spawn(process.execPath, [ptydeckLauncher(), 'host'], {
      detached: true,
      stdio: ['ignore', logFd, logFd],
      cwd: homedir(),
      env: hostEnv(stateDir),
    });
    const started: { pid: number | undefined; exit?: string } = { pid: child.pid };
    child.once('error', (error) => (started.exit = error.message));
    child.once('exit', (code, signal) => (started.exit = signal ? `signal ${signal}` : `exit code ${code}`));
    child.unref();
    return started;
  } finally {
    closeSync(logFd);
  }
}

function hostEnv(stateDir: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, PTYDECK_STATE_DIR: stateDir };
  // The client's own ties: a host serves every client, not the chat or session this one was started from.
  delete env.PTYDECK_CHAT_BINDING;
  delete env.PTYDECK_SESSION_ID;
  delete env.PTYDECK_HOST_ID;
  delete env.PTYDECK_SESSION_KEY;
  // In the desktop app the runtime is Electron's binary, which runs a script as Node only when told to.
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  return env;
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
