import { PlanEntry, ToolKind, ToolStatus, type ChatEvent, type ToolContent } from '@ptydeck/contract';

/**
 * ACP's session/update notifications as the contract's chat events, and the
 * reports of terminals an agent runs itself. Pure: the chat host applies the
 * terminal reports (display sessions in the PTY service) before mapping, so
 * a tool call's terminal content can name the session that shows it.
 *
 * Input is typed loosely on purpose: updates come from a semi-trusted process
 * and from protocol versions newer than the SDK's types (v2's
 * terminal_update), so every field is checked, and what cannot be shown is
 * dropped rather than thrown.
 */

/** What an agent-owned terminal reported: v1's `_meta` convention (Claude's, Codex's adapters) or v2's updates. */
export type AgentTerminalReport =
  | { kind: 'open'; terminalId: string; command?: string; cwd?: string; toolCallId?: string }
  | { kind: 'output'; terminalId: string; data: string | Uint8Array }
  | { kind: 'exit'; terminalId: string; exitCode: number | null; signal: string | null }
  /** A tool call named its shell command (in rawInput) in an update after the one that opened its terminal. */
  | { kind: 'command'; toolCallId: string; command: string }
  /**
   * The whole output of a tool call's command, in its final update's rawOutput: what its terminal shows if no
   * output was streamed to it (Codex streams none for a quick command, Claude none for a failing one).
   */
  | { kind: 'final_output'; toolCallId: string; data: string }
  /** A tool call completed or failed: a terminal it opened has ended, whether or not the agent reported the exit. */
  | { kind: 'settled'; toolCallId: string };

/** An ACP terminal id (client-side or agent-owned) to the PTY session showing it, or undefined. */
export type TerminalResolver = (terminalId: string) => string | undefined;

type Json = Record<string, unknown>;

// The contract's own enums: a value the contract gains is recognised here without a second list.
const TOOL_KINDS = new Set<string>(ToolKind.options);
const TOOL_STATUSES = new Set<string>(ToolStatus.options);
const PRIORITIES = new Set<string>(PlanEntry.shape.priority.options);
const PLAN_STATUSES = new Set<string>(PlanEntry.shape.status.options);

/**
 * The agent-owned terminal reports in one update, in the order to apply
 * them. v1: a tool_call or tool_call_update whose `_meta` carries
 * `terminal_info {terminal_id, cwd?}`, `terminal_output {terminal_id, data}`
 * or `terminal_exit {terminal_id, exit_code, signal}`. v2: `terminal_update`
 * (an upsert whose `exitStatus` marks the exit) and `terminal_output_chunk`
 * (base64 bytes).
 */
export function agentTerminalReports(update: unknown): AgentTerminalReport[] {
  if (!isObject(update)) return [];
  const reports: AgentTerminalReport[] = [];
  const kind = update.sessionUpdate;
  if (kind === 'tool_call' || kind === 'tool_call_update') {
    const meta = isObject(update._meta) ? update._meta : {};
    const toolCallId = nonEmpty(update.toolCallId) ? update.toolCallId : undefined;
    const info = meta.terminal_info;
    const opens = isObject(info) && nonEmpty(info.terminal_id);
    if (opens) {
      const command = stringOr(info.command) ?? commandOf(update.rawInput) ?? stringOr(update.title);
      reports.push({
        kind: 'open',
        terminalId: info.terminal_id as string,
        ...(command ? { command } : {}),
        ...(stringOr(info.cwd) ? { cwd: info.cwd as string } : {}),
        ...(toolCallId ? { toolCallId } : {}),
      });
    }
    // Claude's adapter opens the terminal with `rawInput: {}` and names the command in the next update.
    const command = commandOf(update.rawInput);
    if (toolCallId && command && !opens) reports.push({ kind: 'command', toolCallId, command });
    const output = meta.terminal_output;
    if (isObject(output) && nonEmpty(output.terminal_id) && typeof output.data === 'string') {
      reports.push({ kind: 'output', terminalId: output.terminal_id, data: output.data });
    }
    const settled = toolCallId !== undefined && (update.status === 'completed' || update.status === 'failed');
    const final = settled ? outputOf(update.rawOutput) : undefined;
    if (final) reports.push({ kind: 'final_output', toolCallId: toolCallId!, data: final });
    const exit = meta.terminal_exit;
    if (isObject(exit) && nonEmpty(exit.terminal_id)) {
      reports.push({ kind: 'exit', terminalId: exit.terminal_id, exitCode: intOrNull(exit.exit_code), signal: stringOr(exit.signal) ?? null });
    }
    // After the exit in the same update, so a reported exit code wins. Claude's adapter reports none for a failed command.
    if (settled) reports.push({ kind: 'settled', toolCallId: toolCallId! });
  } else if (kind === 'terminal_update' && nonEmpty(update.terminalId)) {
    const command = stringOr(update.command);
    const cwd = stringOr(update.cwd);
    reports.push({ kind: 'open', terminalId: update.terminalId, ...(command ? { command } : {}), ...(cwd ? { cwd } : {}) });
    if (isObject(update.exitStatus)) {
      reports.push({ kind: 'exit', terminalId: update.terminalId, exitCode: intOrNull(update.exitStatus.exitCode), signal: stringOr(update.exitStatus.signal) ?? null });
    }
  } else if (kind === 'terminal_output_chunk' && nonEmpty(update.terminalId) && typeof update.data === 'string') {
    reports.push({ kind: 'output', terminalId: update.terminalId, data: Buffer.from(update.data, 'base64') });
  }
  return reports;
}

/** The chat events one session/update stands for; none for updates the chat does not show (modes, commands, usage). */
export function toChatEvents(update: unknown, resolveTerminal: TerminalResolver): ChatEvent[] {
  if (!isObject(update)) return [];
  switch (update.sessionUpdate) {
    case 'user_message_chunk':
      return message('user', update);
    case 'agent_message_chunk':
      return message('agent', update);
    case 'agent_thought_chunk':
      return message('thought', update);
    case 'tool_call':
    case 'tool_call_update':
      return toolEvent(update, resolveTerminal);
    case 'plan':
      return [{ type: 'plan', entries: Array.isArray(update.entries) ? update.entries.flatMap(planEntry) : [] }];
    case 'notice': {
      const text = [stringOr(update.title), stringOr(update.description)].filter(Boolean).join(': ');
      return text ? [{ type: 'notice', level: update.severity === 'error' ? 'error' : 'info', text }] : [];
    }
    default:
      return [];
  }
}

/**
 * A finished command's output in a tool call's rawOutput: Codex's exec result
 * (`aggregated_output`, else stdout and stderr), or Claude's Bash result (a string).
 */
function outputOf(rawOutput: unknown): string | undefined {
  if (typeof rawOutput === 'string') return rawOutput || undefined;
  if (!isObject(rawOutput)) return undefined;
  const aggregated = stringOr(rawOutput.aggregated_output);
  if (aggregated !== undefined) return aggregated || undefined;
  return [stringOr(rawOutput.stdout), stringOr(rawOutput.stderr)].filter(Boolean).join('') || undefined;
}

/** The shell command in a tool call's rawInput, where an agent put one (`{command}`, as Claude's Bash and Codex's exec do). */
export function commandOf(rawInput: unknown): string | undefined {
  return isObject(rawInput) ? stringOr(rawInput.command) : undefined;
}

function message(role: 'user' | 'agent' | 'thought', update: Json): ChatEvent[] {
  const text = blockText(update.content);
  if (!text) return [];
  const messageId = stringOr(update.messageId);
  return [{ type: 'message', role, ...(messageId ? { messageId } : {}), text }];
}

function toolEvent(update: Json, resolveTerminal: TerminalResolver): ChatEvent[] {
  if (!nonEmpty(update.toolCallId)) return [];
  const event: Extract<ChatEvent, { type: 'tool' }> = { type: 'tool', toolCallId: update.toolCallId };
  const title = stringOr(update.title);
  if (title !== undefined) event.title = title;
  if (typeof update.kind === 'string') event.kind = (TOOL_KINDS.has(update.kind) ? update.kind : 'other') as typeof event.kind;
  if (typeof update.status === 'string' && TOOL_STATUSES.has(update.status)) event.status = update.status as typeof event.status;
  if (Array.isArray(update.content)) event.content = update.content.flatMap((item) => toolContent(item, resolveTerminal));
  if (Array.isArray(update.locations)) {
    event.locations = update.locations.flatMap((location) =>
      isObject(location) && typeof location.path === 'string' ? [{ path: location.path, line: intOrNull(location.line) }] : [],
    );
  }
  // An update that only carried terminal output (in _meta) changes nothing on the card.
  if (update.sessionUpdate === 'tool_call_update' && Object.keys(event).length === 2) return [];
  return [event];
}

function toolContent(item: unknown, resolveTerminal: TerminalResolver): ToolContent[] {
  if (!isObject(item)) return [];
  if (item.type === 'content') {
    const text = blockText(item.content);
    return text ? [{ type: 'text', text }] : [];
  }
  if (item.type === 'diff' && typeof item.path === 'string' && typeof item.newText === 'string') {
    return [{ type: 'diff', path: item.path, oldText: typeof item.oldText === 'string' ? item.oldText : null, newText: item.newText }];
  }
  if (item.type === 'terminal' && nonEmpty(item.terminalId)) {
    const sessionId = resolveTerminal(item.terminalId);
    // A terminal that is not this chat's (never created, or another's) is not shown: its id could name anything.
    return sessionId ? [{ type: 'terminal', sessionId }] : [];
  }
  return [];
}

function planEntry(entry: unknown): PlanEntry[] {
  if (!isObject(entry) || typeof entry.content !== 'string') return [];
  return [
    {
      content: entry.content,
      priority: (typeof entry.priority === 'string' && PRIORITIES.has(entry.priority) ? entry.priority : 'medium') as PlanEntry['priority'],
      status: (typeof entry.status === 'string' && PLAN_STATUSES.has(entry.status) ? entry.status : 'pending') as PlanEntry['status'],
    },
  ];
}

/** A content block as text: text itself, a link or embedded resource by name, anything else by its type. */
function blockText(block: unknown): string {
  if (!isObject(block)) return '';
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'resource_link':
      return `[${stringOr(block.title) ?? stringOr(block.name) ?? 'link'}](${stringOr(block.uri) ?? ''})`;
    case 'resource': {
      const resource = isObject(block.resource) ? block.resource : {};
      return typeof resource.text === 'string' ? resource.text : `[resource ${stringOr(resource.uri) ?? ''}]`;
    }
    default:
      return typeof block.type === 'string' ? `[${block.type}]` : '';
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function intOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}
