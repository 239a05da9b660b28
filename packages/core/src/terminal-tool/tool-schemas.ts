// The terminal tool's input schemas, with the limits a model's input is held to.
import { z } from 'zod';
import { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, SandboxProfile, formatZodIssues } from '@ptydeck/contract';
import { TerminalToolError } from './errors.js';
import { KEY_NAMES } from './keys.js';

/**
 * Input schemas of the terminal_* tools. The MCP server registers these shapes
 * and the tool parses with them again, so every entry point is checked the
 * same way. Descriptions are written for a model choosing arguments.
 */

export const MAX_INPUT_BYTES = 1024 * 1024;
export const DEFAULT_MAX_BYTES = 16 * 1024;
export const MAX_TIMEOUT_MS = 600_000;

const id = z.string().min(1, 'id must not be empty').max(128).describe('Terminal id returned by terminal_create or terminal_run.');

const maxBytes = z
  .number()
  .int()
  .min(256, 'max_bytes must be at least 256')
  .max(MAX_INPUT_BYTES, 'max_bytes must be at most 1048576 (1 MiB)')
  .optional()
  .describe('Most bytes of output to return (default 16384). Longer output keeps its head and tail around a "... N bytes omitted ..." line.');

const timeoutMs = z
  .number()
  .int('timeout_ms must be a whole number of milliseconds')
  .min(0, 'timeout_ms must not be negative')
  .max(MAX_TIMEOUT_MS, 'timeout_ms must be at most 600000 (10 minutes); for longer work return early and follow with terminal_wait');

const withinInputLimit = (text: string) => Buffer.byteLength(text, 'utf8') <= MAX_INPUT_BYTES;
const inputTooLarge = 'input is larger than 1 MiB; send it in smaller parts, or write it to a file and run a command that reads the file';

const cwd = z
  .string()
  .min(1)
  .max(4096)
  .describe('Working directory: an absolute path (or starting with ~/) that exists.');

export const createShape = {
  command: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe('Program to run instead of an interactive shell, e.g. "python3". Omit for a persistent bash shell (best for terminal_run).'),
  args: z.array(z.string().max(65536)).max(1024).optional().describe('Arguments for command, passed as-is without a shell.'),
  cwd: cwd.optional(),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'env names are letters, digits and _'), z.string().max(65536))
    .optional()
    .describe('Extra environment variables. Agent terminals default to PAGER=cat and GIT_PAGER=cat; set them here to override.'),
  title: z.string().max(200).optional().describe('The terminal\'s title: its tab\'s, where a ptydeck panel shows it to the developer.'),
  cols: z.number().int().min(MIN_COLS).max(MAX_COLS).optional().describe('Terminal width in columns (default 120).'),
  rows: z.number().int().min(MIN_ROWS).max(MAX_ROWS).optional().describe('Terminal height in rows (default 32).'),
  sandbox: SandboxProfile.optional().describe(
    'Fence this shell more tightly than your default: "workspace" (writes only in cwd, a private /tmp and package caches; keys and credentials hidden; network on) or "workspace-offline" (the same, no network). A looser profile than the developer set for you is refused.',
  ),
};

export const runShape = {
  command: z
    .string()
    .min(1, 'command must not be empty')
    .refine(withinInputLimit, inputTooLarge)
    .describe('Shell command line to run to completion, e.g. "npm test". May span several lines.'),
  id: id.optional().describe('Run in this shell (keeps its cwd and environment from earlier runs). Omit to start a new shell.'),
  cwd: cwd.optional().describe('Change to this directory first (the shell stays there). Absolute path, or ~/...'),
  timeout_ms: timeoutMs
    .default(30_000)
    .describe('Stop waiting after this many ms (default 30000, max 600000). The command keeps running; follow it with terminal_wait or terminal_read.'),
  max_bytes: maxBytes,
};

export const sendShape = {
  id,
  text: z
    .string()
    .refine(withinInputLimit, inputTooLarge)
    .optional()
    .describe('Text typed literally (no Enter added; add keys ["Enter"] or end with "\\r").'),
  keys: z
    .array(z.string().max(32))
    .max(256)
    .optional()
    .describe(`Keys pressed after text, in order. Names: ${KEY_NAMES.join(', ')}.`),
  wait_ms: z
    .number()
    .int()
    .min(0, 'wait_ms must not be negative')
    .max(60_000, 'wait_ms must be at most 60000; use terminal_wait for longer waits')
    .default(500)
    .describe('Collect output for up to this many ms (default 500); returns sooner once output goes quiet.'),
  max_bytes: maxBytes,
};

export const readShape = {
  id,
  mode: z
    .enum(['new', 'screen', 'all'])
    .default('new')
    .describe('"new": output since your previous read (default). "screen": the visible screen as text, for full-screen programs (less, vim, top). "all": all retained output.'),
  max_bytes: maxBytes,
  wait_ms: z
    .number()
    .int()
    .min(0, 'wait_ms must not be negative')
    .max(MAX_TIMEOUT_MS, 'wait_ms must be at most 600000')
    .default(0)
    .describe('With mode "new": block up to this many ms until new output arrives or the process exits (default 0).'),
};

export const waitShape = {
  id,
  until: z
    .enum(['exit', 'idle', 'pattern', 'port'])
    .default('exit')
    .describe(
      '"exit" (the default): the running command finishes (in a shell) or the process exits. "idle": no output for idle_ms. "pattern": a regex matches new output. "port": a process of this terminal (a server started here, backgrounded or detached too) listens on a TCP port no result reported yet, or on `port`: the server is ready; read from the kernel within 250 ms, Linux only.',
    ),
  pattern: z.string().max(4096).optional().describe('JavaScript regular expression (multiline) matched against new plain-text output; required with until "pattern".'),
  port: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe('With until "port": wait for this TCP port to listen in this terminal (reported or not). Omit to wait for any new one.'),
  timeout_ms: timeoutMs.default(30_000).describe('Give up after this many ms (default 30000, max 600000); the result then says "timeout".'),
  idle_ms: z
    .number()
    .int()
    .min(50, 'idle_ms must be at least 50')
    .max(60_000, 'idle_ms must be at most 60000')
    .default(1000)
    .describe('With until "idle": how long output must stay quiet (default 1000).'),
  max_bytes: maxBytes,
};

export const closeShape = {
  id,
  force: z.boolean().default(false).describe('Kill immediately with SIGKILL instead of SIGHUP first.'),
};

// Strict, and given to the MCP server as they are: an argument no tool takes (a `timeout` for `timeout_ms`, an `input`
// for `text`) is refused by name; the SDK's own object would have dropped it, and the call gone on without it.
export const ListInput = z.object({}).strict();
export const CreateInput = z.object(createShape).strict();
export const RunInput = z.object(runShape).strict();
export const SendInput = z.object(sendShape).strict();
export const ReadInput = z.object(readShape).strict();
export const WaitInput = z.object(waitShape).strict();
export const CloseInput = z.object(closeShape).strict();

export type CreateInput = z.input<typeof CreateInput>;
export type RunInput = z.input<typeof RunInput>;
export type SendInput = z.input<typeof SendInput>;
export type ReadInput = z.input<typeof ReadInput>;
export type WaitInput = z.input<typeof WaitInput>;
export type CloseInput = z.input<typeof CloseInput>;

/** Parses a tool's input with its schema; every problem is named in one invalid_input error. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new TerminalToolError('invalid_input', `Invalid arguments: ${formatZodIssues(result.error)}`);
}
