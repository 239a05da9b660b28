// The agent terminal tool's public surface: its options, its call hooks and the seven calls, apart from
// their implementation (terminal-tool.ts), as node-pty keeps its typings.
import type { SessionInfo } from '@ptydeck/contract';
import type { SessionFacts } from '../facts/index.js';
import type { ScreenService } from '../screen/index.js';
import type { TerminalOwner } from './owned-sessions.js';
import type { CloseResult, CreateResult, ListResult, OutputResult, ReadResult, RunResult, WaitResult } from './results.js';
import type { SandboxSettings } from './shell-launch.js';
import type { CloseInput, CreateInput, ReadInput, RunInput, SendInput, WaitInput } from './tool-schemas.js';

export interface TerminalToolOptions {
  /** Live agent sessions allowed per owner. Default 16. */
  maxLivePerOwner?: number;
  /** Exited sessions kept readable per owner; the oldest is removed first. Default 20. */
  maxExitedPerOwner?: number;
  /** Program for interactive agent shells. Default: $SHELL when it is bash, else bash, else $SHELL or sh. */
  shell?: string;
  /** Environment added to every agent session, before the caller's own env. Default PAGER=cat, GIT_PAGER=cat. */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** How long a new shell may take to show its first prompt before terminal_run falls back to nonce marks. Default 10 s. */
  shellStartMs?: number;
  /** Live sessions of disconnected agents kept running; past it the oldest are closed. Default 8. */
  maxOrphanedLive?: number;
  /**
   * The service's screens, for `terminal_read` mode "screen": pass the one the
   * panel uses so a session is parsed once. Without it the tool makes its own
   * and disposes it with itself.
   */
  screens?: ScreenService;
  /**
   * How agents' shells are fenced (sandbox/): each owner's profile and what the
   * sandbox is built from. Without it every agent shell runs as the developer.
   */
  sandbox?: SandboxSettings;
  /**
   * Where what the tool learns of its sessions (a program waiting for input,
   * the shell's state) is told, for the panels: pass the one the server
   * shows. Without it the tool makes its own and disposes it with itself.
   */
  facts?: SessionFacts;
}

export interface ToolCallHooks {
  /** Called with new plain-text output while a run or wait is in progress. */
  onProgress?: (text: string) => void;
  /** Aborts the wait (the command keeps running). */
  signal?: AbortSignal;
}

export interface TerminalTool {
  create(owner: TerminalOwner, input: CreateInput): Promise<CreateResult>;
  run(owner: TerminalOwner, input: RunInput, hooks?: ToolCallHooks): Promise<RunResult>;
  send(owner: TerminalOwner, input: SendInput, hooks?: ToolCallHooks): Promise<OutputResult>;
  read(owner: TerminalOwner, input: ReadInput, hooks?: ToolCallHooks): Promise<ReadResult>;
  wait(owner: TerminalOwner, input: WaitInput, hooks?: ToolCallHooks): Promise<WaitResult>;
  close(owner: TerminalOwner, input: CloseInput): Promise<CloseResult>;
  /** The owner's sessions, with what runs in them: the process table is read between turns of the loop (OwnedProcesses.list). */
  list(owner: TerminalOwner): Promise<ListResult>;
  /** Ends and removes every session of one owner (e.g. when its connection goes away for good). */
  closeOwner(ownerId: string): Promise<void>;
  /**
   * The owner's connection ended. Its sessions stay for the developer to read
   * or close, but as orphans: at most `maxOrphanedLive` of them run at once
   * (the oldest are closed past it), and they are the first closed when a
   * connected agent needs room.
   */
  ownerDisconnected(ownerId: string): void;
  /** The owner connected again under the same id (a chat's agent): its sessions are its own again, not orphans. */
  ownerReturned(ownerId: string): void;
  /**
   * An agent's session an earlier host kept, just restored in the service: its
   * owner's again (state `lost`, or `exited`), read from `cursor` on when the
   * host kept the owner's read position.
   */
  adoptRestored(info: SessionInfo, cursor: number | null): void;
  /**
   * The owner's read position in one of the tool's sessions (null otherwise): what the session store keeps.
   * Still answered after dispose(), as it stood then: a stopping host writes its store last.
   */
  agentCursorOf(id: string): number | null;
  /** Stops following the service and removes the generated shell files; sessions stay in the service. */
  dispose(): void;
}
