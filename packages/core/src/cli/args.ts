// Parses the ptydeck command line into one command, or a usage error that says what is wrong.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EXPORT_FORMATS, type ExportFormat } from '../common/recording-formats.js';
import { parseRemote, type RemoteCommand } from './remote-args.js';

export { EXPORT_FORMATS, type ExportFormat };
import { ATTACH_USAGE, EXPORT_USAGE, HOST_USAGE, LS_USAGE, MCP_USAGE, ROOT_USAGE, SANDBOX_USAGE, SERVE_USAGE, STATUS_USAGE, STOP_USAGE, URL_USAGE, UsageError } from './usage.js';

export type Command =
  | { kind: 'help'; topic: HelpTopic }
  | { kind: 'version' }
  /** No command: make sure a host runs, then print a panel link. */
  | { kind: 'open' }
  | { kind: 'serve' | 'host'; port: number; host: string; idleExitSeconds?: number }
  | { kind: 'mcp'; embedded: boolean; sandbox?: SandboxProfileName; remote?: string; agentKeyStdin?: boolean }
  | { kind: 'sandbox-check'; json: boolean }
  | { kind: 'url' }
  | { kind: 'stop'; force: boolean }
  | { kind: 'ls'; json: boolean; remote?: string }
  | { kind: 'status'; json: boolean }
  | { kind: 'attach'; target: string; write: boolean; remote?: string }
  | { kind: 'export'; target: string; format: ExportFormat; output: string | null }
  /** Hidden: run on a remote by another machine's host (remote/panel-channel.ts). */
  | { kind: 'panel-channel' }
  | RemoteCommand;

const COMMANDS = ['serve', 'host', 'mcp', 'url', 'stop', 'status', 'ls', 'attach', 'export', 'sandbox', 'remote'] as const;
/**
 * The sandbox profiles' names, as the contract's SandboxProfile lists them (a
 * test holds the two equal): spelled out here so that parsing a command line
 * loads no schema library, which every client start would pay for.
 */
export const SANDBOX_PROFILE_NAMES = ['off', 'workspace', 'workspace-offline'] as const;
export type SandboxProfileName = (typeof SANDBOX_PROFILE_NAMES)[number];

export type HelpTopic = 'root' | (typeof COMMANDS)[number];

/** Parses argv (without node and the script) into one command, or throws a UsageError. */
export function parseCommand(argv: string[]): Command {
  const [first, ...rest] = argv;
  if (first === undefined) return { kind: 'open' };
  if (first === '-h' || first === '--help' || first === 'help') {
    // `ptydeck --help stop` as `ptydeck help stop`: the command's help, not the root's with the word dropped.
    if (rest[0] !== undefined) return helpFor(rest[0]);
    return { kind: 'help', topic: 'root' };
  }
  if (first === '-v' || first === '--version') {
    // Anything after it is a mistake (`ptydeck -v ls`): say so rather than print the version and drop it.
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}' after ${first}`, 'ptydeck', ROOT_USAGE);
    return { kind: 'version' };
  }
  if (first === 'serve') return parseServe(rest, 'serve', SERVE_USAGE);
  if (first === 'host') return parseServe(rest, 'host', HOST_USAGE);
  if (first === 'mcp') return parseMcp(rest);
  if (first === 'stop') {
    const values = parse(rest, { force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, 'ptydeck stop', STOP_USAGE);
    return values.help ? { kind: 'help', topic: 'stop' } : { kind: 'stop', force: Boolean(values.force) };
  }
  if (first === 'url') {
    const values = parse(rest, { help: { type: 'boolean', short: 'h' } }, 'ptydeck url', URL_USAGE);
    return values.help ? { kind: 'help', topic: 'url' } : { kind: 'url' };
  }
  if (first === 'ls') {
    const values = parse(rest, { json: { type: 'boolean' }, remote: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 'ptydeck ls', LS_USAGE);
    return values.help ? { kind: 'help', topic: 'ls' } : { kind: 'ls', json: Boolean(values.json), ...remoteOption(values.remote) };
  }
  if (first === 'status') {
    const values = parse(rest, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, 'ptydeck status', STATUS_USAGE);
    return values.help ? { kind: 'help', topic: 'status' } : { kind: 'status', json: Boolean(values.json) };
  }
  if (first === 'attach') return parseAttach(rest);
  if (first === 'export') return parseExport(rest);
  if (first === 'sandbox') return parseSandbox(rest);
  if (first === 'remote') return parseRemote(rest);
  if (first === 'panel-channel') {
    parse(rest, {}, 'ptydeck panel-channel', ROOT_USAGE);
    return { kind: 'panel-channel' };
  }
  if (first.startsWith('-')) {
    throw new UsageError(`unknown option '${first}'; expected a command (${COMMANDS.join(', ')}), --help or --version`, 'ptydeck', ROOT_USAGE);
  }
  throw new UsageError(`unknown command '${first}'; expected one of: ${COMMANDS.join(', ')}`, 'ptydeck', ROOT_USAGE);
}

function helpFor(topic: string): Command {
  if ((COMMANDS as readonly string[]).includes(topic)) return { kind: 'help', topic: topic as HelpTopic };
  throw new UsageError(`no help for '${topic}'; expected one of: ${COMMANDS.join(', ')}`, 'ptydeck', ROOT_USAGE);
}

/** `serve` and `host` take the same options: they are the same host, in a terminal or for a service manager. */
function parseServe(args: string[], kind: 'serve' | 'host', usage: string): Command {
  const name = `ptydeck ${kind}`;
  const values = parse(args, { port: { type: 'string' }, host: { type: 'string' }, 'idle-exit': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, name, usage);
  if (values.help) return { kind: 'help', topic: kind };
  let port = 0;
  if (values.port !== undefined) {
    const text = String(values.port);
    if (!/^\d+$/.test(text) || Number(text) > 65535) {
      throw new UsageError(`--port expects an integer from 0 to 65535, received '${text}'`, name, usage);
    }
    port = Number(text);
  }
  const host = values.host === undefined ? '127.0.0.1' : String(values.host);
  if (host.trim() === '') throw new UsageError(`--host expects an address such as 127.0.0.1, received ''`, name, usage);
  let idleExitSeconds: number | undefined;
  if (values['idle-exit'] !== undefined) {
    const text = String(values['idle-exit']);
    if (!/^\d+(\.\d+)?$/.test(text)) throw new UsageError(`--idle-exit expects a number of seconds (0: never), received '${text}'`, name, usage);
    idleExitSeconds = Number(text);
  }
  return { kind, port, host, ...(idleExitSeconds !== undefined ? { idleExitSeconds } : {}) };
}

function parseMcp(args: string[]): Command {
  const values = parse(
    args,
    // --agent-key-stdin: the bridge's identity comes as stdin's first line (a `ptydeck mcp --remote` on another machine keeps it across reconnects).
    { embedded: { type: 'boolean' }, sandbox: { type: 'string' }, remote: { type: 'string' }, 'agent-key-stdin': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    'ptydeck mcp',
    MCP_USAGE,
  );
  if (values.help) return { kind: 'help', topic: 'mcp' };
  if (values.remote !== undefined) {
    if (values.embedded || values.sandbox !== undefined) throw new UsageError('--remote runs the agent\'s shells in the remote\'s host: --embedded and --sandbox do not apply', 'ptydeck mcp', MCP_USAGE);
    return { kind: 'mcp', embedded: false, ...remoteOption(values.remote) };
  }
  if (values['agent-key-stdin']) return { kind: 'mcp', embedded: false, agentKeyStdin: true };
  if (values.sandbox === undefined) return { kind: 'mcp', embedded: Boolean(values.embedded) };
  const sandbox = String(values.sandbox);
  if (!(SANDBOX_PROFILE_NAMES as readonly string[]).includes(sandbox)) {
    throw new UsageError(`--sandbox expects one of ${SANDBOX_PROFILE_NAMES.join(', ')}, received '${sandbox}'`, 'ptydeck mcp', MCP_USAGE);
  }
  return { kind: 'mcp', embedded: Boolean(values.embedded), sandbox: sandbox as SandboxProfileName };
}

/** `ptydeck sandbox check [--json]`: whether each profile can start here. */
function parseSandbox(args: string[]): Command {
  const [verb, ...rest] = args;
  if (verb === '-h' || verb === '--help') return { kind: 'help', topic: 'sandbox' };
  if (verb !== 'check') throw new UsageError(`expected \`ptydeck sandbox check\`, received ${verb === undefined ? 'nothing' : `'${verb}'`}`, 'ptydeck sandbox', SANDBOX_USAGE);
  const values = parse(rest, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, 'ptydeck sandbox check', SANDBOX_USAGE);
  return values.help ? { kind: 'help', topic: 'sandbox' } : { kind: 'sandbox-check', json: Boolean(values.json) };
}

function parseAttach(args: string[]): Command {
  const options = { write: { type: 'boolean' }, remote: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;
  let parsed;
  try {
    parsed = parseOptions(args, options, true);
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }, options), 'ptydeck attach', ATTACH_USAGE);
  }
  if (parsed.values.help) return { kind: 'help', topic: 'attach' };
  const [target, ...extra] = parsed.positionals;
  if (target === undefined || target === '') throw new UsageError('expected a session id or a unique prefix of one (see `ptydeck ls`), received nothing', 'ptydeck attach', ATTACH_USAGE);
  if (extra.length > 0) throw new UsageError(`expected one session, received ${parsed.positionals.length}: ${parsed.positionals.join(' ')}`, 'ptydeck attach', ATTACH_USAGE);
  return { kind: 'attach', target, write: Boolean(parsed.values.write), ...remoteOption(parsed.values.remote) };
}

/** `--remote NAME`: which remote (a name from `ptydeck remote ls`) the command runs on. */
function remoteOption(value: string | boolean | (string | boolean)[] | undefined): { remote?: string } {
  return typeof value === 'string' ? { remote: value } : {};
}

function parseExport(args: string[]): Command {
  const options = { format: { type: 'string' }, output: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } } as const;
  let parsed;
  try {
    parsed = parseOptions(args, options, true);
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }, options), 'ptydeck export', EXPORT_USAGE);
  }
  if (parsed.values.help) return { kind: 'help', topic: 'export' };
  const [target, ...extra] = parsed.positionals;
  if (target === undefined || target === '') throw new UsageError('expected a session id or a unique prefix of one (see `ptydeck ls`), received nothing', 'ptydeck export', EXPORT_USAGE);
  if (extra.length > 0) throw new UsageError(`expected one session, received ${parsed.positionals.length}: ${parsed.positionals.join(' ')}`, 'ptydeck export', EXPORT_USAGE);
  const format = parsed.values.format ?? 'asciicast-v3';
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format expects one of ${EXPORT_FORMATS.join(', ')}, received '${format}'`, 'ptydeck export', EXPORT_USAGE);
  }
  return { kind: 'export', target, format: format as ExportFormat, output: parsed.values.output ?? null };
}

function parse(
  args: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  command: string,
  usage: string,
): Record<string, string | boolean | (string | boolean)[] | undefined> {
  try {
    return parseOptions(args, options, false).values;
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }, options), command, usage);
  }
}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;
/** What parseArgs answers for `options`, strict. */
type ParsedOptions<T extends OptionsConfig> = ReturnType<typeof parseArgs<{ options: T; strict: true; allowPositionals: true }>>;

/**
 * node:util's parseArgs, strict, for every command; a command line it would
 * read at a glance is read here instead: only plain arguments and `--name`
 * for boolean options, which parseArgs takes as positionals and `true`.
 * parseArgs itself is a module Node loads on its first call, and was half a
 * millisecond of `ptydeck ls`, `url` and `attach` (bench figure 12). Anything
 * else (a value, a short option, `--`, `-`, an unknown or misplaced word)
 * goes to parseArgs, which decides and words the error; args.test.ts holds
 * the two to the same answers.
 */
export function parseOptions<T extends OptionsConfig>(args: string[], options: T, allowPositionals: boolean): ParsedOptions<T> {
  // Like parseArgs's: no prototype, so no name finds Object's.
  const values: Record<string, true> = Object.create(null) as Record<string, true>;
  const positionals: string[] = [];
  // An option with a default has a value even when not given: parseArgs fills it in.
  const read = (): ParsedOptions<T> => parseArgs({ args, options, strict: true, allowPositionals }) as ParsedOptions<T>;
  if (Object.values(options).some((option) => option.default !== undefined)) return read();
  for (const arg of args) {
    const option = arg.startsWith('--') && Object.hasOwn(options, arg.slice(2)) ? options[arg.slice(2)]! : undefined;
    const plain = !arg.startsWith('-') && allowPositionals;
    if (!plain && (option?.type !== 'boolean' || option.multiple === true)) return read();
    if (plain) positionals.push(arg);
    else values[arg.slice(2)] = true;
  }
  return { values, positionals } as ParsedOptions<T>;
}

/** Turns node:util's messages into "expected X, received Y" terms. */
function describeParseError(error: Error & { code?: string }, options: NonNullable<ParseArgsConfig['options']>): string {
  const names = Object.keys(options)
    .map((n) => `--${n}`)
    .join(', ');
  const quoted = /'([^']+)'/.exec(error.message)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option '${quoted ?? '?'}'; expected one of: ${names}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${quoted ?? '?'}'; this command takes options only (${names})`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const option = quoted?.split(' ')[0] ?? 'option';
      if (/argument missing/.test(error.message)) return `${option} expects a value, received nothing`;
      if (/does not take an argument/.test(error.message)) return `${option} takes no value, received one`;
      return error.message;
    }
    default:
      return error.message;
  }
}
