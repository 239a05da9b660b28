// Starts an agent session's program with the best shell integration it can get.
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { SandboxProfile } from '@ptydeck/contract';
import type { z } from 'zod';
import { resolveExecutable } from '../pty/command.js';
import { spawnTurnsOf } from '../pty/spawn-turns.js';
import { PtyError, type PtyService } from '../pty/types.js';
import type { SessionFactsWriter } from '../facts/index.js';
import { Listings, SandboxUnavailableError, confineSession, type Confinement, type SandboxSettings, type SessionSpawn } from '../sandbox/index.js';
import { AgentTerminal } from './agent-terminal.js';
import type { OwnedSessions, TerminalOwner } from './owned-sessions.js';
import type { CreateInput } from './tool-schemas.js';
import { TerminalToolError, fromPtyError } from './errors.js';
import { NonceStrategy, ShellMarksStrategy, type ExecuteStrategy } from './execute-strategy.js';
import { integrationFor, keepShellIntegration, type IntegrationKind, type ShellIntegrationFiles } from './shell-integration.js';

export { shellQuote } from './shell-integration.js';
export type { SandboxSettings } from '../sandbox/index.js';

/** How to start an agent session's program, and how commands will be run in it. */
export interface ShellLaunch {
  command: string;
  args: string[];
  /** Null for a program that is not a shell: terminal_run is refused there. */
  strategy: ExecuteStrategy | null;
}

/** Environment every agent session gets before the tool's and the caller's own: nothing waits on a pager. */
export const AGENT_ENV = { PAGER: 'cat', GIT_PAGER: 'cat' };

export interface LaunchOptions {
  shell?: string;
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  sandbox?: SandboxSettings;
}

/**
 * Launches agent sessions: bash with our integration rcfile when it can (the
 * rich strategy), another POSIX shell with nonce marks, anything else as a
 * plain program. Owns the generated rcfile's directory.
 */
export class ShellLauncher {
  private files: ShellIntegrationFiles | null = null;

  constructor(
    private readonly service: PtyService,
    private readonly facts: SessionFactsWriter,
    private readonly owned: OwnedSessions,
    private readonly options: LaunchOptions,
  ) {}

  /** Starts a session for `owner` within its quotas, and registers it. */
  async start(owner: TerminalOwner, input: z.output<typeof CreateInput>): Promise<AgentTerminal> {
    this.owned.checkRoom(owner.id);
    const cwd = input.cwd === undefined ? owner.cwd : checkCwd(input.cwd);
    const launch = this.launch(input.command, input.args);
    const confine = this.confinerFor(owner, input.sandbox);
    // Quota check, spawn and registration in one turn of the spawn queue: creations queued
    // together never both pass a quota the first one's session fills.
    const create = () =>
      spawnTurnsOf(this.service).run(() => {
        this.owned.checkRoom(owner.id);
        const info = this.service.create({
          command: launch.command,
          args: launch.args,
          cwd,
          env: { ...AGENT_ENV, ...this.options.env, ...input.env },
          cols: input.cols ?? this.options.cols ?? 120,
          rows: input.rows ?? this.options.rows ?? 32,
          title: input.title,
          source: 'agent',
          owner: owner.id,
          ownerName: owner.name,
          ...(confine ? { confine } : {}),
        });
        const session = new AgentTerminal(this.service, this.facts, info.id, owner.id, launch.strategy, info.cwd);
        this.owned.add(session);
        return session;
      });
    try {
      return await create();
    } catch (error) {
      // The agents' share is full: a disconnected agent's oldest session makes room for a connected one.
      if (!(error instanceof PtyError && error.code === 'session_limit') || !(await this.owned.makeRoom())) throw fromPtyError(error);
      try {
        return await create();
      } catch (retryError) {
        throw fromPtyError(retryError);
      }
    }
  }

  /**
   * How a new session of `owner` is confined, built from its final environment
   * at the spawn; undefined when the tool has no sandbox settings. A looser
   * request, or an explicit profile that cannot start, is a `sandbox` error:
   * the session is not started unsandboxed.
   */
  private confinerFor(owner: TerminalOwner, requested: SandboxProfile | undefined): ((spawn: SessionSpawn) => Confinement) | undefined {
    const settings = this.options.sandbox;
    if (!settings) {
      if (requested !== undefined && requested !== 'off') {
        throw new TerminalToolError('sandbox', `This ptydeck runs no sandboxed shells, so a ${requested} sandbox cannot be given. Nothing was started.`);
      }
      return undefined;
    }
    const keepVisible = this.files ? [dirname(this.files.bashRcfile)] : [];
    // What the policy lists is listed off the loop, between tries of the create in the spawn queue (listings.ts).
    const listings = new Listings();
    return (spawn) => {
      try {
        return confineSession(settings, owner, requested, spawn, keepVisible, listings);
      } catch (error) {
        if (error instanceof SandboxUnavailableError) throw new TerminalToolError('sandbox', error.message);
        throw error;
      }
    };
  }

  /** `command` and `args` as the agent gave them; without a command, an interactive shell. */
  launch(command: string | undefined, args: string[] | undefined): ShellLaunch {
    if (command !== undefined) {
      return { command, args: args ?? [], strategy: strategyFor(integrationFor(command, false)) };
    }
    const shell = this.options.shell ?? agentShell();
    if (basename(shell) === 'bash') {
      this.files = keepShellIntegration(this.files);
      return { command: shell, args: ['--rcfile', this.files.bashRcfile, '-i'], strategy: strategyFor(integrationFor(shell, true)) };
    }
    return { command: shell, args: ['-i'], strategy: strategyFor(integrationFor(shell, false)) };
  }

  dispose(): void {
    this.files?.dispose();
    this.files = null;
  }
}

function strategyFor(kind: IntegrationKind): ExecuteStrategy | null {
  return kind === 'bash' ? new ShellMarksStrategy() : kind === 'nonce' ? new NonceStrategy() : null;
}

/**
 * The shell for agent sessions: $SHELL when it is bash, else bash from PATH,
 * else $SHELL or sh. bash first, unlike the developer's own tabs, because its
 * integration gives exact command boundaries and exit codes.
 */
function agentShell(): string {
  const shell = process.env.SHELL;
  if (shell && basename(shell) === 'bash') return shell;
  try {
    return resolveExecutable('bash', process.env.PATH, process.cwd());
  } catch {
    return shell || '/bin/sh';
  }
}

/** Resolves ~ and checks that the directory exists, with a message a model can act on. */
export function checkCwd(raw: string): string {
  const cwd = raw === '~' ? homedir() : raw.startsWith('~/') ? join(homedir(), raw.slice(2)) : raw;
  if (!isAbsolute(cwd)) {
    throw new TerminalToolError('invalid_input', `cwd must be an absolute path (or start with ~/), got ${JSON.stringify(raw)}.`);
  }
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    throw new TerminalToolError('invalid_input', `cwd does not exist: ${cwd}. Create it first (e.g. terminal_run "mkdir -p ${cwd}") or pick an existing directory.`);
  }
  if (!isDir) throw new TerminalToolError('invalid_input', `cwd is not a directory: ${cwd}.`);
  return cwd;
}
