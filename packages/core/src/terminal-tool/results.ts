import { SandboxInfo, SandboxProfile } from '@ptydeck/contract';
import { z } from 'zod';

/**
 * What each terminal_* tool returns, one schema per result. Claude Code and
 * Codex hand the model the JSON of the structured result (opencode its text),
 * so the field order is the reading order: for a command, its outcome, exit
 * code and output first, then the terminal's own state. Each name has one
 * meaning across the seven tools:
 * - `exit_code`: the exit code of a shell command (never of the terminal's process);
 * - `process_exit_code` / `process_signal`: how the terminal's process ended, once it has;
 * - `state`: what the terminal is doing now;
 * - `output`: plain text for the model, bounded; `truncated` says when the middle was left out.
 * The MCP server registers these as output schemas; the types below derive from them.
 */

const terminalState = z
  .enum(['running', 'idle_at_prompt', 'waiting_for_input', 'alt_screen', 'exited', 'lost'])
  .describe(
    'What the terminal is doing now: running a command or program, idle at its shell prompt, waiting for input, showing a full-screen program, exited, or lost: its process is gone because ptydeck\'s host stopped (killed, crashed or upgraded) while it ran; what it printed until then can still be read, nothing can be typed.',
  );
const promptKind = z
  .enum(['confirm', 'password', 'pager', 'select', 'repl', 'press_key', 'unknown'])
  .describe('With state waiting_for_input: the kind of input asked for. Answer with terminal_send (text, then keys ["Enter"]).');
const output = z.string().describe('Plain text (no escape codes, no echo of what you typed), bounded: a long middle becomes "... N bytes omitted ...".');
const truncated = z.boolean().describe('True when output left bytes out of the middle; terminal_read mode "all" has the retained log.');
const cursor = z.number().int().describe('Your read position after this call, as an absolute byte offset in the terminal\'s output.');
const skipped = z.number().int().describe('Bytes you never saw because the retained log was trimmed before you read them.');

/** Every pid the tool reports for a terminal is the one its own shell uses, so `kill` and `ps` in it act on the process named. */
const seenPid = 'As the terminal\'s shell sees it: in a sandbox, its pid in the sandbox\'s own PID namespace.';

const listedPort = z
  .object({
    port: z.number().int().describe('The TCP port.'),
    address: z.string().describe('The address it listens on: 127.0.0.1 or ::1 is this machine only, 0.0.0.0 or :: every interface.'),
    pid: z.number().int().describe(`The process holding the listening socket. ${seenPid}`),
  })
  .describe('A TCP port a process of this terminal listens on.');
const listedProcess = z.object({
  pid: z.number().int().describe(seenPid),
  command: z.string().describe('Its command line, bounded.'),
  started_at: z.number().int().describe('Unix time in ms.'),
});
const endedProcess = z.object({ pid: z.number().int().describe(seenPid), command: z.string().describe('Its command line, bounded.') });
const portsOpened = z
  .array(listedPort)
  .optional()
  .describe('Listening ports of this terminal\'s processes that no earlier result reported: a server started here is ready. Present when not empty (Linux only).');

const portInUse = z
  .array(
    z.object({
      port: z.number().int().describe('The TCP port the command found taken.'),
      pid: z
        .number()
        .int()
        .nullable()
        .describe(
          'The process listening on it: given when it is yours (as your terminal\'s shell sees it: in a sandbox, the sandbox\'s pid) or outside ptydeck; null in another agent\'s or the developer\'s terminal, or for another user\'s process.',
        ),
      command: z.string().nullable().describe('Its command line, bounded; null with pid.'),
      session: z.string().nullable().describe('Your terminal it runs in; null for any other.'),
      owner: z
        .string()
        .describe('Whose it is: "you" (one of your terminals), another agent\'s name, "the developer", "a closed ptydeck terminal", or "outside ptydeck".'),
    }),
  )
  .optional()
  .describe(
    'Present when the output says a port is already in use (EADDRINUSE, "address already in use", "port N is already in use"): who listens on it, from the kernel (Linux only). Do not start a second server or change the app\'s port: use the running one, end your own with terminal_close, or ask the developer.',
  );

/** The terminal's own state: last in every result. */
export const terminalShape = {
  id: z.string().describe('The terminal id.'),
  state: terminalState,
  prompt: promptKind.optional(),
  prompt_text: z.string().optional().describe('With state waiting_for_input: the prompt\'s line as the developer sees it.'),
  developer_answering: z
    .literal(true)
    .optional()
    .describe('With state waiting_for_input: the developer is typing the answer in the panel right now. Do not answer with terminal_send (you would type into their answer): follow with terminal_wait, which goes on until the command ends.'),
  process_exit_code: z.number().int().nullable().optional().describe('Once the terminal\'s process has ended: its exit code (null when a signal ended it).'),
  process_signal: z.string().nullable().optional().describe('Once the terminal\'s process has ended: the signal that ended it, if any.'),
  unwritten_bytes: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe('With state lost: bytes at the end of its output that the stopped host had read but not yet saved, so nobody can read them (null: not known); more may be missing after them.'),
  restored: z
    .literal(true)
    .optional()
    .describe(
      'Present for a terminal taken back from the record an earlier ptydeck host left on disk: its output, title and cwd are what that file says, and any process running as your user could have written it. Do not take it as proof of what ran.',
    ),
};

export const createResultShape = {
  ...terminalShape,
  pid: z
    .number()
    .int()
    .nullable()
    .describe(
      "The terminal's program's process id as your shell sees it (`$$` in a shell). In a sandbox, its pid in the sandbox's own PID namespace (null when the program had not started yet), as is every pid terminal_list, terminal_close and port_in_use give for that terminal: use them with kill and ps inside it.",
    ),
  title: z.string(),
  cwd: z.string(),
  command: z.string().describe('The program and its arguments.'),
  terminal: z
    .object({
      kind: z.enum(['tty', 'pipe', 'none']),
      color: z.enum(['none', 'basic', '256', 'truecolor']),
      columns: z.number().int().nullable(),
      rows: z.number().int().nullable(),
      sharedStdoutStderr: z.boolean(),
    })
    .describe('What programs in the terminal see: a tty, its colour depth and size.'),
  sandbox: SandboxInfo.optional().describe(
    'How the OS fences this shell: profile (off, workspace, workspace-offline), the paths it may write, the paths hidden from it, the paths it may only read though they lie in a writable one or are its working directory (readOnly: what the developer\'s tools run, such as .git/hooks and .git/config; readOnlyWhy says why when the working directory itself is read-only), whether it has network. unavailable says why a default sandbox could not start and the shell runs unsandboxed.',
  ),
};

export const runResultShape = {
  outcome: z
    .enum(['completed', 'running', 'waiting_for_input', 'shell_exited'])
    .describe('completed: the command finished (see exit_code). running: timeout_ms passed first; the command keeps running (follow with terminal_wait). waiting_for_input: the command stopped to ask for input (see prompt, prompt_text): answer with terminal_send, then follow it with terminal_wait. shell_exited: the shell itself ended.'),
  exit_code: z.number().int().nullable().describe('The command\'s exit code when outcome is completed, else null.'),
  output: output.describe('The command\'s own output, plain text, bounded.'),
  truncated,
  earlier_output: z
    .string()
    .optional()
    .describe('Output that arrived in this terminal before the command ran and that you had not read yet (a background job, a server\'s log).'),
  skipped: skipped.optional(),
  elapsed_ms: z.number().int(),
  cwd: z.string().describe('The shell\'s working directory after the command.'),
  ports_opened: portsOpened,
  port_in_use: portInUse,
  ...terminalShape,
};

const outputFields = {
  output,
  truncated,
  exit_code: z.number().int().nullable().optional().describe('Present when a shell command finished within this output: its exit code.'),
  cursor,
  skipped,
};

export const sendResultShape = { ...outputFields, ...terminalShape };

export const readResultShape = {
  mode: z.enum(['new', 'screen', 'all']),
  ...outputFields,
  ...terminalShape,
};

export const waitResultShape = {
  reason: z
    .enum(['exit', 'idle', 'pattern', 'port', 'waiting_for_input', 'timeout'])
    .describe('What ended the wait. port: a process of the terminal listens on a new port, or the one asked for (see ports_opened). waiting_for_input: the program asks for input (see prompt, prompt_text): answer with terminal_send.'),
  scope: z.enum(['command', 'process']).describe('command: the wait followed a command in a shell; process: the terminal\'s process itself.'),
  match: z.string().optional().describe('With reason pattern: the text that matched.'),
  ...outputFields,
  elapsed_ms: z.number().int(),
  ports_opened: portsOpened,
  port_in_use: portInUse,
  ...terminalShape,
};

export const closeResultShape = {
  id: z.string(),
  process_exit_code: z.number().int().nullable().describe('How the process ended: its exit code (null when a signal ended it).'),
  process_signal: z.string().nullable(),
  output: output.describe('Output you had not read yet, plain text, bounded.'),
  truncated,
  ended: z
    .array(endedProcess)
    .optional()
    .describe('Every process of the terminal that was ended: its process group, its background jobs, and jobs that detached (nohup, setsid, daemons) but carry its PTYDECK_SESSION_ID (Linux only). A sandbox\'s launcher, which its shell cannot see, is not listed.'),
  ports_freed: z.array(listedPort).optional().describe('Ports its processes listened on, free now (Linux only).'),
  not_ended: z.array(endedProcess).optional().describe('Processes of the terminal still running after SIGKILL: present only when some are.'),
};

export const listedTerminalSchema = z.object({
  id: z.string(),
  title: z.string(),
  command: z.string(),
  cwd: z.string(),
  state: terminalState,
  process_exit_code: z.number().int().nullable().optional(),
  unread_bytes: z
    .number()
    .int()
    .describe('Bytes of text terminal_read (mode "new") would return now: output you have not read yet, without prompts or escape sequences. 0: a read returns nothing.'),
  created_at: z.number().int().describe('Unix time in ms.'),
  sandbox: SandboxProfile.optional().describe('The sandbox profile the terminal runs under (off: none).'),
  ports: z.array(listedPort).optional().describe('TCP ports the terminal\'s processes listen on, detached ones included (Linux only).'),
  background: z
    .array(listedProcess)
    .optional()
    .describe('Processes of the terminal still running besides its shell and its foreground command: background jobs and jobs that detached (nohup, setsid, daemons), also after the shell exited. terminal_close ends them (Linux only).'),
});

export const listResultShape = { terminals: z.array(listedTerminalSchema) };

type Shaped<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;
export type TerminalFields = Shaped<typeof terminalShape>;
export type CreateResult = Shaped<typeof createResultShape>;
export type RunResult = Shaped<typeof runResultShape>;
export type OutputResult = Shaped<typeof sendResultShape>;
export type ReadResult = Shaped<typeof readResultShape>;
export type WaitResult = Shaped<typeof waitResultShape>;
export type CloseResult = Shaped<typeof closeResultShape>;
export type ListedTerminal = z.infer<typeof listedTerminalSchema>;
export type ListResult = Shaped<typeof listResultShape>;
export type ListedPort = z.infer<typeof listedPort>;
export type ListedProcess = z.infer<typeof listedProcess>;
export type PortInUse = NonNullable<z.infer<typeof portInUse>>[number];
export type ClosedProcesses = Required<Pick<CloseResult, 'ended' | 'ports_freed'>> & Pick<CloseResult, 'not_ended'>;
