// The MCP server of the agent terminal tool: the seven terminal_* tools for one connection.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { byteCount } from '@ptydeck/contract';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxProfile } from '@ptydeck/contract';
import { shownAgentName } from '../common/printable.js';
import { TerminalToolError } from './errors.js';
import type { TerminalOwner, TerminalTool, ToolCallHooks } from './terminal-tool.js';
import { CLOSED_TERMINAL, OUTSIDE_PTYDECK, YOU } from './port-in-use.js';
import { closeResultShape, createResultShape, listResultShape, readResultShape, runResultShape, sendResultShape, waitResultShape, type PortInUse } from './results.js';
import { CloseInput, CreateInput, ListInput, ReadInput, RunInput, SendInput, WaitInput } from './tool-schemas.js';

/** One MCP connection: its sessions are owned by `id`. */
export interface AgentConnection {
  id: string;
  transport: 'http' | 'stdio';
  /**
   * The name on the badges of this connection's sessions, when ptydeck knows
   * better than the client's own name (a chat's agent, from agents.json).
   */
  ownerName?: string;
  /** Where its new shells start when a call names no cwd (a chat's directory). */
  cwd?: string;
  /** The sandbox profile its client asked for (`ptydeck mcp --sandbox`). */
  sandbox?: SandboxProfile;
  /** Called once the client has completed initialize, with the name and version it gave. */
  onInitialized?: (client: { name: string; version: string | null }) => void;
}

export interface AgentMcpServerOptions {
  tool: TerminalTool;
  connection: AgentConnection;
  /**
   * Whether a panel can show the connection's terminals to the developer: a host's can;
   * `ptydeck mcp --embedded` serves no panel. What the agent is told says which.
   */
  panel: boolean;
  /** Reported to clients as the server version. */
  version?: string;
  /** Registers the host's further tools (timeline/'s terminal_history) on the server, for the same connection. */
  extend?: (server: McpServer, connection: AgentConnection) => void;
}

/** What the agent is told at initialize: where its terminals are seen, then how to use them. */
function instructionsFor(panel: boolean): string {
  const seen = panel
    ? 'ptydeck gives you real terminals that the developer can watch live in ptydeck\'s panel (and type into).'
    : 'ptydeck gives you real terminals, run by this MCP server itself (ptydeck mcp --embedded): no panel shows them, so the developer does not see them and cannot type into them, and they end when this server exits.';
  return `${seen}
Use terminal_run for shell commands: it returns the exit code and plain-text output. For long commands pass a small timeout_ms and follow with terminal_wait.
Use terminal_send for interactive programs (prompts, REPLs, full-screen tools) and read them with terminal_read (mode "screen" for full-screen programs).
Every result ends with the terminal's state: running, idle_at_prompt, waiting_for_input, alt_screen, exited, or lost (ptydeck's host stopped while it ran: its process is gone, its output until then readable). Close terminals you no longer need with terminal_close.`;
}

/** Extra fields the SDK hands a tool callback; only what we use. */
interface CallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; message?: string } }) => Promise<void>;
}

/**
 * An MCP server exposing the agent terminal tool to one connection. The caller
 * connects it to a transport; everything here is transport-neutral.
 */
export function createAgentMcpServer(options: AgentMcpServerOptions): McpServer {
  const { tool, connection } = options;
  const server = new McpServer(
    { name: 'ptydeck', version: options.version ?? '0.1.0' },
    { capabilities: { tools: {} }, instructions: instructionsFor(options.panel) },
  );

  server.server.oninitialized = () => {
    const client = server.server.getClientVersion();
    connection.onInitialized?.({ name: shownAgentName(client?.name), version: client?.version ?? null });
  };
  const owner = (): TerminalOwner => {
    const name = connection.ownerName ?? shownAgentName(server.server.getClientVersion()?.name);
    return { id: connection.id, ...(name ? { name } : {}), ...(connection.cwd ? { cwd: connection.cwd } : {}), ...(connection.sandbox ? { sandbox: connection.sandbox } : {}) };
  };

  server.registerTool(
    'terminal_create',
    {
      title: 'Create terminal',
      description:
        `Start a terminal: a persistent interactive bash shell by default, or a program given as command and args. Returns its id, pid, cwd, state and terminal capability.${options.panel ? ' The developer sees it as a tab in the ptydeck panel.' : ''}`,
      inputSchema: CreateInput,
      outputSchema: createResultShape,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async (args) =>
      respond(async () => {
        const result = await tool.create(owner(), args);
        return [result, `Terminal ${result.id} started: ${result.command} (pid ${result.pid}) in ${result.cwd}; ${stateText(result)}.`];
      }),
  );

  server.registerTool(
    'terminal_run',
    {
      title: 'Run command',
      description:
        'Run one shell command to completion and return its outcome, exit_code and plain-text output (no ANSI codes, no echo). Runs in the given shell (cwd and environment persist between runs) or a new one. If timeout_ms passes first, returns outcome "running" with output so far; the command keeps running: follow with terminal_wait or terminal_read. Output that arrived before the command and that you had not read comes apart, as earlier_output. ports_opened names TCP ports the terminal\'s processes started listening on; when the output says a port is already in use, port_in_use says who holds it (yours, another agent\'s, the developer\'s, or outside ptydeck): use or end your own server, never start a second one or change the app\'s port. Both read Linux /proc; elsewhere they are left out.',
      inputSchema: RunInput,
      outputSchema: runResultShape,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    async (args, extra) =>
      respond(async () => {
        const result = await tool.run(owner(), args, hooks(extra as unknown as CallExtra));
        const head =
          result.outcome === 'completed'
            ? `[${result.id}] exit ${result.exit_code} in ${result.elapsed_ms} ms (cwd ${result.cwd})`
            : result.outcome === 'shell_exited'
              ? `[${result.id}] the shell itself exited (${processText(result)})`
              : result.outcome === 'waiting_for_input'
                ? `[${result.id}] waiting for input after ${result.elapsed_ms} ms${askText(result)}`
              : `[${result.id}] still running after ${result.elapsed_ms} ms (${stateText(result)}); follow with terminal_wait or terminal_read`;
        const earlier = inUseText(result.port_in_use, options.panel) + portsText(result.ports_opened) + (result.earlier_output === undefined ? '' : `Earlier output, before this command:\n${result.earlier_output}${result.earlier_output.endsWith('\n') ? '' : '\n'}---\n`);
        return [result, withOutput(head, earlier + result.output)];
      }),
  );

  server.registerTool(
    'terminal_send',
    {
      title: 'Send input',
      description:
        'Type into a terminal: text is sent literally, keys are named (Enter, Ctrl-C, Up, ...). Returns the output that follows (up to wait_ms, sooner once it goes quiet) and the state. Use it to answer prompts, drive REPLs and full-screen programs, or interrupt with Ctrl-C.',
      inputSchema: SendInput,
      outputSchema: sendResultShape,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    async (args, extra) =>
      respond(async () => {
        const result = await tool.send(owner(), args, hooks(extra as unknown as CallExtra));
        return [result, withOutput(statusLine(result), result.output)];
      }),
  );

  server.registerTool(
    'terminal_read',
    {
      title: 'Read output',
      description:
        'Read a terminal: mode "new" returns output since your last read (your position is kept, even after exit and across a restart of ptydeck\'s host), "screen" the visible screen as text (for less, vim, top), "all" all retained output. Reports state, cursor and skipped; a terminal lost with a stopped host reads as state "lost", with unwritten_bytes: how much of its end was never saved.',
      inputSchema: ReadInput,
      outputSchema: readResultShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) =>
      respond(async () => {
        const result = await tool.read(owner(), args, hooks(extra as unknown as CallExtra));
        return [result, withOutput(statusLine(result), result.output)];
      }),
  );

  server.registerTool(
    'terminal_wait',
    {
      title: 'Wait',
      description:
        'Wait until the running command finishes (or the process exits), output goes idle, a regex matches new output, or (until "port") a server started in the terminal listens on a port; says which happened, or "timeout". Returns the new output, ports_opened: TCP ports the terminal\'s processes started listening on, and port_in_use when the output says a port is already in use: who holds it. Ports are read from Linux /proc; elsewhere until "port" is refused and ports_opened and port_in_use left out.',
      inputSchema: WaitInput,
      outputSchema: waitResultShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) =>
      respond(async () => {
        const result = await tool.wait(owner(), args, hooks(extra as unknown as CallExtra));
        const why = result.reason === 'timeout' ? `timed out after ${result.elapsed_ms} ms` : `${result.reason}${result.match ? ` (matched ${JSON.stringify(result.match)})` : ''}`;
        return [result, withOutput(`${why}; ${statusLine(result)}`, inUseText(result.port_in_use, options.panel) + portsText(result.ports_opened) + result.output)];
      }),
  );

  server.registerTool(
    'terminal_close',
    {
      title: 'Close terminal',
      description:
        "End a terminal's processes and release it: its process group and POSIX session (SIGHUP, then SIGKILL), then every process that detached but carries the terminal's PTYDECK_SESSION_ID (nohup, setsid, daemons: SIGTERM, then SIGKILL). Returns its final unread output, how its process ended, what was ended (ended, ports_freed) and any process that could not be (not_ended). Detached processes are found through Linux /proc; elsewhere they are not, and those fields are left out.",
      inputSchema: CloseInput,
      outputSchema: closeResultShape,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (args) =>
      respond(async () => {
        const result = await tool.close(owner(), args);
        const ended = result.ended ? `; ended ${result.ended.map(processName).join(', ') || 'nothing more'}` : '';
        const freed = result.ports_freed?.length ? `; freed ${result.ports_freed.map(portName).join(', ')}` : '';
        const left = result.not_ended ? `; could not end ${result.not_ended.map(processName).join(', ')}` : '';
        return [result, withOutput(`[${result.id}] closed (${processText(result)})${ended}${freed}${left}`, result.output)];
      }),
  );

  server.registerTool(
    'terminal_list',
    {
      title: 'List terminals',
      description:
        'List your terminals: id, title, command, cwd, state (lost: its process went with a stopped ptydeck host; it stays readable until terminal_close), how an exited one ended, unread bytes (what terminal_read would return now), and (Linux /proc only; left out elsewhere) the TCP ports their processes listen on and the processes running in the background, detached ones (nohup, setsid, daemons) included.',
      inputSchema: ListInput,
      outputSchema: listResultShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () =>
      respond(async () => {
        const result = await tool.list(owner());
        const lines = result.terminals.map(
          (t) =>
            `${t.id}  ${t.state}${t.process_exit_code != null ? ` (exit ${t.process_exit_code})` : ''}  ${t.command}  ${t.cwd}  unread ${t.unread_bytes} B` +
            (t.ports?.length ? `  ports ${t.ports.map(portName).join(', ')}` : '') +
            (t.background?.length ? `  background ${t.background.map(processName).join(', ')}` : ''),
        );
        return [result, lines.length ? lines.join('\n') : 'No terminals. Start one with terminal_create or terminal_run.'];
      }),
  );

  options.extend?.(server, connection);
  return server;
}

function hooks(extra: CallExtra): ToolCallHooks {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { signal: extra.signal };
  let progress = 0;
  return {
    signal: extra.signal,
    onProgress: (text) => {
      progress += Buffer.byteLength(text, 'utf8');
      // A lost progress notification is harmless; the result carries the output.
      extra
        .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message: text } })
        .catch(() => undefined);
    },
  };
}

interface TerminalStatus {
  id: string;
  state: string;
  prompt?: string;
  prompt_text?: string;
  developer_answering?: true;
  exit_code?: number | null;
  process_exit_code?: number | null;
  process_signal?: string | null;
  unwritten_bytes?: number | null;
  restored?: true;
}

/** How a terminal's process ended. */
function processText(result: { process_exit_code?: number | null; process_signal?: string | null }): string {
  return result.process_signal ? `killed by ${result.process_signal}` : `exit ${result.process_exit_code}`;
}

/** What a lost terminal is, and how much of its end is missing. */
function lostText(result: TerminalStatus): string {
  const missing = unsavedText(result.unwritten_bytes);
  return `its process is gone: ptydeck's host stopped while it ran; ${missing}; it takes no input`;
}

/**
 * How much of a lost terminal's end is missing: the host's figure is what it
 * had read and not saved when it last saved, so 0 says only that what came
 * after that save is missing, if anything came.
 */
function unsavedText(bytes: number | null | undefined): string {
  if (bytes == null) return 'how much of its last output is missing is not known';
  if (bytes === 0) return 'what it printed after the host last saved it (about the last second) is missing, if it printed anything then';
  return `at least its last ${byteCount(bytes)} of output were never saved`;
}

/** What a waiting program asks, and how to answer it. */
function askText(result: TerminalStatus): string {
  if (result.state !== 'waiting_for_input') return '';
  if (result.developer_answering) {
    return `: ${JSON.stringify(result.prompt_text ?? '')} (${result.prompt ?? 'unknown'}). The developer is typing the answer in the panel: do not type into it; follow with terminal_wait {"id": "${result.id}"}, which goes on until the command ends`;
  }
  return `: ${JSON.stringify(result.prompt_text ?? '')} (${result.prompt ?? 'unknown'}). Answer with terminal_send {"id": "${result.id}", "text": "...", "keys": ["Enter"]}, then follow with terminal_wait`;
}

function stateText(result: TerminalStatus): string {
  return `state ${result.state}${result.prompt ? `, asks for ${result.prompt}` : ''}`;
}

function statusLine(result: TerminalStatus): string {
  const command = result.exit_code != null ? ` (a command finished: exit ${result.exit_code})` : '';
  const ended = result.state === 'exited' ? ` (${processText(result)})` : result.state === 'lost' ? ` (${lostText(result)})` : '';
  const restored = result.restored ? ' (restored from the record an earlier host left on disk, which anything running as your user could have written: not proof of what ran)' : '';
  return `[${result.id}] ${result.state}${ended}${restored}${command}${askText(result)}`;
}

function portName(port: { address: string; port: number; pid: number }): string {
  return `${port.address.includes(':') ? `[${port.address}]` : port.address}:${port.port} (pid ${port.pid})`;
}

function processName(proc: { pid: number; command: string }): string {
  return `${proc.pid} ${proc.command}`;
}

function portsText(ports: Array<{ address: string; port: number; pid: number }> | undefined): string {
  return ports?.length ? `Listening now: ${ports.map(portName).join(', ')}\n` : '';
}

/** Who holds a port the command found taken, and what to do instead of a second server (`panel`: whether the developer has one to end it from). */
function inUseText(holders: PortInUse[] | undefined, panel: boolean): string {
  return (holders ?? [])
    .map((holder) => {
      const held = holder.pid === null ? '' : `pid ${holder.pid} (${holder.command})`;
      const who =
        holder.owner === YOU
          ? `${held} in your terminal ${holder.session}: use that server, or end it with terminal_close, instead of starting a second one or changing the app's port`
          : holder.owner === OUTSIDE_PTYDECK
            ? `${held || "another user's process"}, outside ptydeck: do not end it or change the app's port without asking the developer`
            : holder.owner === CLOSED_TERMINAL
              ? `a process ${CLOSED_TERMINAL} left running: ask the developer${panel ? ', who can end it from the panel,' : ''} instead of changing the app's port`
              : `a process in a terminal of ${holder.owner} (not yours): do not end it or change the app's port; ask the developer`;
      return `Port ${holder.port} is already in use, held by ${who}.\n`;
    })
    .join('');
}

function withOutput(head: string, output: string): string {
  return output === '' ? head : `${head}\n${output}`;
}

/**
 * Runs a tool operation; its failures become isError results a model can act on.
 * A failure carries its message as text only: SDK-based clients (opencode, MCP
 * Inspector) check any structuredContent against the tool's output schema, even
 * on an error, and would replace the message with a schema complaint. Without
 * structuredContent every client hands the model the text.
 */
async function respond(operation: () => Promise<[object, string]>): Promise<CallToolResult> {
  try {
    const [structured, text] = await operation();
    return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const text = error instanceof TerminalToolError ? message : `Internal error: ${message}`;
    return { isError: true, content: [{ type: 'text', text }] };
  }
}
