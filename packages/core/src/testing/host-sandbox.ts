import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach } from 'vitest';
import { isLive, procPids, readOptional, readStat } from '../proc/proc-fs.js';
import { isolatedHome } from './isolated-env.js';
import { until } from './poll-until.js';

/**
 * A state directory and HOME of a test's own, for tests that run the real
 * `ptydeck` CLI and so may start a detached host: no test joins or starts a
 * host in the real state directory, and `reap` leaves no process behind that
 * a sandbox's host or its sessions started (every one carries the sandbox's
 * PTYDECK_STATE_DIR in its environment). Test-only.
 */
export interface HostSandbox {
  stateDir: string;
  home: string;
  /** The environment a CLI child runs with: this sandbox's HOME and state directory, no colour, not inside a session. */
  env: Record<string, string>;
}

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = join(packageRoot, 'bin', 'ptydeck.js');
const repoRoot = resolve(packageRoot, '..', '..');

/** Builds the core as the launcher runs it (dist); for a beforeAll. */
export function buildCore(): void {
  const build = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/core'], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
}

export function hostSandbox(extra: Record<string, string> = {}): HostSandbox {
  const home = isolatedHome();
  const stateDir = join(home, 'state');
  mkdirSync(stateDir, { mode: 0o700 });
  const env: Record<string, string> = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        (entry): entry is [string, string] =>
          entry[1] !== undefined && !['FORCE_COLOR', 'CLICOLOR_FORCE', 'PTYDECK_SESSION_ID', 'PTYDECK_CHAT_BINDING', 'PTYDECK_IDLE_EXIT', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME'].includes(entry[0]),
      ),
    ),
    HOME: home,
    HISTFILE: join(home, '.bash_history'),
    PTYDECK_STATE_DIR: stateDir,
    PTYDECK_CONFIG_DIR: join(home, 'config'),
    NO_COLOR: '1',
    ...extra,
  };
  return { stateDir, home, env };
}

/** Pids of live processes (not zombies) whose environment names this state directory. */
export function processesOf(stateDir: string): number[] {
  // Compared as /proc reads it (latin1, one char a byte), so a path of any bytes matches.
  const marker = Buffer.from(`\0PTYDECK_STATE_DIR=${stateDir}\0`).toString('latin1');
  return procPids().filter((pid) => {
    if (pid === process.pid || !isAlive(pid)) return false;
    // A leading NUL so the first variable matches like every other; undefined: gone while we looked, or not ours to read.
    const environ = readOptional(`/proc/${pid}/environ`);
    return environ !== undefined && `\0${environ}`.includes(marker);
  });
}

/** The pid in the host lock, alive or not. */
export function lockedPid(stateDir: string): number | undefined {
  try {
    return Number(readlinkSync(join(stateDir, 'host.lock')).split(':')[0]);
  } catch {
    return undefined;
  }
}

/**
 * Kills every process carrying the sandbox's state directory (its host, that
 * host's sessions, its CLI children) and answers which were alive. The host
 * has it because a client starts it with PTYDECK_STATE_DIR, and its sessions inherit it.
 */
export function reap(sandbox: HostSandbox): number[] {
  const pids = processesOf(sandbox.stateDir);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return pids;
}

/**
 * An agent on stdio through `ptydeck mcp`, as Claude Code or Codex start it, in
 * the sandbox. Its client joins `clients` before it connects, for the caller to close.
 */
export async function stdioAgent(box: HostSandbox, name: string, options: { cwd?: string; clients?: Client[]; args?: string[] } = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', ...(options.args ?? [])], env: box.env, stderr: 'pipe', ...(options.cwd ? { cwd: options.cwd } : {}) });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name, version: '1' });
  options.clients?.push(client);
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The sandbox's discovery file, as the host last wrote it. */
export function discoveryOf(box: HostSandbox): { url: string; pid: number; protocol: number } {
  return JSON.parse(readFileSync(join(box.stateDir, 'server.json'), 'utf8'));
}

/** Runs the CLI in the sandbox to its end. */
export function runCli(box: HostSandbox, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Alive and not a zombie. */
export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && isLive(stat);
}

/**
 * The host sandboxes and MCP clients of one test file's tests, every one
 * closed and reaped after each test, which then waits until no process of a
 * sandbox is left: `track(box)` takes a sandbox in, `clients` is what
 * `stdioAgent` is given. Call at a file's top level.
 */
export function reapAfterEach(): { track<T extends HostSandbox>(box: T): T; clients: Client[] } {
  const sandboxes: HostSandbox[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
    for (const box of sandboxes.splice(0)) {
      reap(box);
      await until(() => processesOf(box.stateDir).length === 0, `no process of ${box.stateDir} is left`);
    }
  });
  return {
    track: (box) => {
      sandboxes.push(box);
      return box;
    },
    clients,
  };
}
