// Commands an agent runs itself and only streams to ptydeck, each shown as a read-only tab tagged with the
// agent.
import { isExistingDirectory } from '../pty/validate.js';
import path from 'node:path';
import type { SessionId } from '@ptydeck/contract';
import { PtyError, type DisplaySession, type PtyService } from '../pty/types.js';
import type { AgentTerminalReport } from './chat-events.js';

export interface AgentOwnedTerminalsOptions {
  /** The chat's owner id, on every display session. */
  owner: string;
  ownerName: string;
  /** Where a terminal that names no (usable) cwd ran: the chat's. */
  cwd: string;
  /** Running terminals shown for this chat at once; past it a new one is not shown. Default 16, as for ACP terminals. */
  maxRunning?: number;
  /** Told when a terminal cannot be shown (a limit, a bad report), once per terminal. */
  onRefused(terminalId: string, reason: string): void;
}

const DEFAULT_MAX_RUNNING = 16;

/**
 * Terminals an agent runs itself and only streams to ptydeck (ACP v1's
 * `_meta.terminal_*` convention, v2's agent-owned terminals), each shown as a
 * display-only session in the PTY service: a read-only tab tagged with the
 * agent. The agent names them; the names are its own, so they map to
 * session ids here and nowhere else.
 */
export class AgentOwnedTerminals {
  private readonly terminals = new Map<string, DisplaySession>();
  /** Terminals whose last byte so far was a CR, so a LF starting the next chunk needs none. */
  private readonly endsInCr = new Set<string>();
  private readonly refused = new Set<string>();
  /** The terminal each tool call opened, for the tool call's later updates that name no terminal. */
  private readonly ofToolCall = new Map<string, string>();
  /** Terminals that were sent output: a tool call's final output would repeat it. */
  private readonly fed = new Set<string>();

  constructor(
    private readonly service: PtyService,
    private readonly options: AgentOwnedTerminalsOptions,
  ) {}

  /** The display session of the agent's terminal `terminalId`, if shown. */
  sessionIdOf(terminalId: string): SessionId | undefined {
    return this.terminals.get(terminalId)?.id;
  }

  apply(report: AgentTerminalReport): void {
    if (report.kind === 'command' || report.kind === 'settled' || report.kind === 'final_output') {
      const terminalId = this.ofToolCall.get(report.toolCallId) ?? '';
      const terminal = this.terminals.get(terminalId);
      if (report.kind === 'command') terminal?.describe(report.command, oneLine(report.command));
      else if (report.kind === 'final_output') {
        if (terminal && !this.fed.has(terminalId)) this.feed(terminalId, terminal, report.data);
      }
      // Ends it (exit unknown) unless its exit was reported: a tab must not run on after its command is over.
      else terminal?.exit(null, null);
      return;
    }
    if (report.kind === 'open' && report.toolCallId) this.ofToolCall.set(report.toolCallId, report.terminalId);
    // Output or an exit for a terminal never announced opens it too: v2 allows it, and nothing would show it otherwise.
    const terminal = this.terminals.get(report.terminalId) ?? this.open(report.terminalId, report.kind === 'open' ? report : {});
    if (!terminal) return;
    if (report.kind === 'output') this.feed(report.terminalId, terminal, report.data);
    else if (report.kind === 'exit') terminal.exit(report.exitCode, report.signal);
  }

  private feed(terminalId: string, terminal: DisplaySession, data: string | Uint8Array): void {
    if (data.length === 0) return;
    this.fed.add(terminalId);
    terminal.append(this.withCrs(terminalId, data));
  }

  /**
   * An agent's own commands write to pipes, not a terminal, so their lines end
   * in a bare LF, which a terminal screen shows as a staircase: a PTY's line
   * discipline would have sent CR LF (ONLCR), so this adds the CRs.
   */
  private withCrs(terminalId: string, data: string | Uint8Array): Uint8Array {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let previousCr = this.endsInCr.has(terminalId);
    let lfs = 0;
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === LF && (i > 0 ? bytes[i - 1] !== CR : !previousCr)) lfs++;
    const out = lfs === 0 ? bytes : new Uint8Array(bytes.length + lfs);
    if (lfs > 0) {
      let j = 0;
      for (let i = 0; i < bytes.length; i++) {
        const byte = bytes[i]!;
        if (byte === LF && !previousCr) out[j++] = CR;
        out[j++] = byte;
        previousCr = byte === CR;
      }
    }
    if (bytes.length > 0) {
      if (bytes[bytes.length - 1] === CR) this.endsInCr.add(terminalId);
      else this.endsInCr.delete(terminalId);
    }
    return out;
  }

  /** Ends every display still running: the agent that fed them is gone. */
  endAll(): void {
    for (const terminal of this.terminals.values()) terminal.exit(null, null);
  }

  private open(terminalId: string, details: { command?: string; cwd?: string }): DisplaySession | undefined {
    if (this.refused.has(terminalId)) return undefined;
    const max = this.options.maxRunning ?? DEFAULT_MAX_RUNNING;
    const running = [...this.terminals.values()].filter((terminal) => this.service.get(terminal.id)?.status === 'running').length;
    if (running >= max) {
      this.refused.add(terminalId);
      this.options.onRefused(terminalId, `the agent already shows ${max} running terminals of its own in this chat`);
      return undefined;
    }
    try {
      const { session } = this.service.createDisplay({
        source: 'agent',
        owner: this.options.owner,
        ownerName: this.options.ownerName,
        command: details.command || undefined,
        title: details.command ? oneLine(details.command) : `${this.options.ownerName} output`,
        cwd: usableDir(details.cwd) ?? this.options.cwd,
      });
      this.terminals.set(terminalId, session);
      return session;
    } catch (error) {
      this.refused.add(terminalId);
      this.options.onRefused(terminalId, error instanceof PtyError || error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }
}

const TITLE_CHARS = 200;
const CR = 0x0d;
const LF = 0x0a;

function oneLine(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

/** The agent's claimed cwd, when it is an absolute existing directory (it is only shown, never used to run anything). */
function usableDir(dir: string | undefined): string | undefined {
  return dir && path.isAbsolute(dir) && !dir.includes('\0') && isExistingDirectory(dir) ? dir : undefined;
}
