import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { TerminalToolError } from './errors.js';
import { createAgentMcpServer } from './mcp-server.js';
import { createTerminalTool, type TerminalTool } from './terminal-tool.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * The agent tool end to end: the official MCP SDK client talks to our
 * McpServer over the SDK's in-memory transport, driving real bash, python3
 * and less in real PTYs.
 */

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, any>;
}

let service: PtyService;
let tool: TerminalTool;
let dir: string;
const clients: Client[] = [];
const initialized: Array<{ id: string; name: string }> = [];

async function connect(
  name: string,
  withTool: TerminalTool = tool,
): Promise<{ client: Client; call: (tool: string, args?: Record<string, unknown>) => Promise<ToolResult>; id: string }> {
  const id = `conn-${name}-${clients.length}`;
  const server = createAgentMcpServer({
    tool: withTool,
    panel: true,
    connection: { id, transport: 'stdio', onInitialized: (client) => initialized.push({ id, name: client.name }) },
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientTransport);
  // Listing the tools is what makes callTool check every result against its tool's output
  // schema, as opencode and MCP Inspector do: a result that fails it never reaches the model.
  await client.listTools();
  clients.push(client);
  const call = async (toolName: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name: toolName, arguments: args })) as ToolResult;
  return { client, call, id };
}

/** Calls a tool that must succeed and returns its structured content. */
async function ok(call: (tool: string, args?: Record<string, unknown>) => Promise<ToolResult>, name: string, args: Record<string, unknown> = {}) {
  const result = await call(name, args);
  if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
  expect(result.content[0]?.type).toBe('text');
  return result.structuredContent!;
}

type Call = (tool: string, args?: Record<string, unknown>) => Promise<ToolResult>;

/**
 * Output up to the first match of `pattern`: what earlier calls already returned
 * (`seen`) counts, since a call that returned it has moved this caller's cursor past it.
 */
async function untilOutput(call: Call, id: string, pattern: RegExp, seen: string): Promise<{ output: string; state: string; prompt?: string }> {
  let output = seen;
  if (!pattern.test(output)) {
    const waited = await ok(call, 'terminal_wait', { id, until: 'pattern', pattern: pattern.source, timeout_ms: 20_000 });
    expect(waited.reason).toBe('pattern');
    output += waited.output;
  }
  const read = await ok(call, 'terminal_read', { id });
  return { output: output + read.output, state: read.state, prompt: read.prompt };
}

function errorText(result: ToolResult): string {
  expect(result.isError).toBe(true);
  return result.content[0]?.text ?? '';
}

beforeAll(() => {
  dir = fileTempDir('ptydeck-agent-test-');
  // A home without startup files: the machine's own (pyenv rehash, banners) would make shells slow and tests flaky.
  const home = join(dir, 'home');
  mkdirSync(home);
  service = createPtyService({ env: { ...process.env, HOME: home, PYENV_ROOT: process.env.PYENV_ROOT ?? join(homedir(), '.pyenv') } });
  tool = createTerminalTool(service);
});

afterAll(async () => {
  for (const client of clients) await client.close();
  tool.dispose();
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('agent MCP server', () => {
  it('lists all terminal tools with described input fields', async () => {
    const { client } = await connect('lister');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'terminal_close',
      'terminal_create',
      'terminal_list',
      'terminal_read',
      'terminal_run',
      'terminal_send',
      'terminal_wait',
    ]);
    for (const t of tools) {
      for (const [field, schema] of Object.entries((t.inputSchema.properties ?? {}) as Record<string, { description?: string }>)) {
        expect(schema.description, `${t.name}.${field}`).toBeTruthy();
      }
    }
  });

  it('refuses an argument no tool takes, naming it, instead of dropping it (a `timeout` would have waited the default)', async () => {
    const { client, call } = await connect('typo');
    const { tools } = await client.listTools();
    for (const t of tools) expect(t.inputSchema.additionalProperties, t.name).toBe(false);
    const run = await call('terminal_run', { command: 'echo hi', timeout: 60_000 });
    expect(run.isError).toBe(true);
    expect(run.content[0]?.text).toMatch(/Unrecognized key.*"timeout"/);
    const sent = await call('terminal_send', { id: 'x', input: 'ls\n' });
    expect(sent.content[0]?.text).toMatch(/Unrecognized key.*"input"/);
    expect((await call('terminal_list', { all: true })).content[0]?.text).toMatch(/Unrecognized key.*"all"/);
  });

  it('declares an output schema for every tool, and hints which only read and which destroy', async () => {
    const { client } = await connect('schemas');
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const t of tools) expect(t.outputSchema?.type, t.name).toBe('object');
    for (const name of ['terminal_read', 'terminal_list', 'terminal_wait']) expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true);
    expect(byName.get('terminal_close')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('terminal_run')?.annotations?.readOnlyHint).toBe(false);
  });

  it('puts a command\'s outcome, exit code and output first, and the terminal\'s state after them', async () => {
    const { call } = await connect('reader-of-json');
    const run = await call('terminal_run', { command: 'echo first-thing' });
    // A shell terminal_run starts is titled after its command, not just "bash".
    expect(service.get(run.structuredContent!.id)?.title).toBe('echo first-thing');
    // Claude Code and Codex hand the model this JSON: what the command did comes first.
    expect(JSON.stringify(run.structuredContent)).toMatch(/^\{"outcome":"completed","exit_code":0,"output":"first-thing\\n",/);
    const keys = Object.keys(run.structuredContent!);
    expect(keys.indexOf('state')).toBeGreaterThan(keys.indexOf('output'));
    expect(keys).not.toContain('status');
    // opencode hands it the text: the same order.
    expect(run.content[0]?.text).toMatch(/^\[[\w-]+\] exit 0 in \d+ ms \(cwd .*\)\nfirst-thing\n$/);
    // Without `until`, it waits for what an agent waits for most: the command to finish.
    const waited = await ok(call, 'terminal_wait', { id: run.structuredContent!.id });
    expect(Object.keys(waited).slice(0, 3)).toEqual(['reason', 'scope', 'output']);
    expect(waited.reason).toBe('exit');
  });

  it("names an agent by its client's name as a person reads it: no invisible or direction-changing characters, no line breaks, at most 64 characters, never empty", async () => {
    // An empty or invisible badge made an agent's tab look like one of the developer's; a reversed one read otherwise than it is.
    const cases: Array<[string, string]> = [
      ['', 'unknown'],
      ['\u200b \u2066', 'unknown'],
      ['\u202edeveloper', 'developer'],
      ['claude\n\tcode\u0007', 'claude code'],
      ['x'.repeat(10_000), 'x'.repeat(64)],
    ];
    for (const [raw, shown] of cases) {
      const { call, id: connectionId } = await connect(raw);
      const created = await ok(call, 'terminal_create', { cwd: dir });
      expect(service.get(created.id)!.ownerName, JSON.stringify(raw)).toBe(shown);
      expect(initialized.filter((entry) => entry.id === connectionId).map((entry) => entry.name)).toEqual([shown]);
      await ok(call, 'terminal_close', { id: created.id });
    }
  });

  it('runs commands in a persistent shell with exit codes and shared cwd', async () => {
    const { call, id: connectionId } = await connect('runner');
    const created = await ok(call, 'terminal_create', { cwd: dir });
    expect(created).toMatchObject({ state: 'idle_at_prompt', cwd: dir });
    expect(created.terminal).toMatchObject({ kind: 'tty', columns: 120, rows: 32 });
    const info = service.get(created.id)!;
    expect(info).toMatchObject({ source: 'agent', owner: connectionId, ownerName: 'runner' });
    expect(initialized).toContainEqual({ id: connectionId, name: 'runner' });

    const answer = await ok(call, 'terminal_run', { id: created.id, command: 'echo $((6*7))' });
    expect(answer).toMatchObject({ outcome: 'completed', exit_code: 0, output: '42\n', state: 'idle_at_prompt' });

    expect(await ok(call, 'terminal_run', { id: created.id, command: 'false' })).toMatchObject({ exit_code: 1, output: '' });

    await ok(call, 'terminal_run', { id: created.id, command: 'cd /tmp' });
    const pwd = await ok(call, 'terminal_run', { id: created.id, command: 'pwd' });
    expect(pwd).toMatchObject({ exit_code: 0, output: '/tmp\n', cwd: '/tmp' });

    const multi = await ok(call, 'terminal_run', { id: created.id, command: 'for i in 1 2; do\n  echo "x$i\tok"\ndone\n(exit 7)' });
    expect(multi).toMatchObject({ exit_code: 7, output: 'x1\tok\nx2\tok\n' });
  });

  it('defaults PAGER and GIT_PAGER to cat, overridable per terminal', async () => {
    const { call } = await connect('pager');
    const run = await ok(call, 'terminal_run', { command: 'echo "$PAGER $GIT_PAGER"' });
    expect(run.output).toBe('cat cat\n');
    const created = await ok(call, 'terminal_create', { env: { PAGER: 'less' } });
    expect((await ok(call, 'terminal_run', { id: created.id, command: 'echo $PAGER' })).output).toBe('less\n');
  });

  it('returns running after the timeout, then terminal_wait reports the exit', async () => {
    const { call } = await connect('waiter');
    // Held on a FIFO until the first result is in: however late a loaded machine runs the timer, the command outlives it.
    const gate = join(dir, 'waiter-gate');
    execFileSync('mkfifo', [gate]);
    const run = await ok(call, 'terminal_run', { command: `echo start; read -r _ < ${gate}; echo end`, timeout_ms: 300 });
    expect(run).toMatchObject({ outcome: 'running', exit_code: null, state: 'running' });
    writeFileSync(gate, 'go\n');
    const waited = await ok(call, 'terminal_wait', { id: run.id, until: 'exit', timeout_ms: 20_000 });
    expect(waited).toMatchObject({ reason: 'exit', scope: 'command', exit_code: 0, state: 'idle_at_prompt' });
    expect(`${run.output}${waited.output}`).toBe('start\nend\n');
  });

  it('returns at once when a command stops at a [y/N] prompt, and finishes after y + Enter', async () => {
    const { call } = await connect('confirm');
    // The default timeout is 30 s: the answer comes as soon as the kernel sees the read.
    const run = await ok(call, 'terminal_run', { command: `printf 'Continue? [y/N] '; read x; echo "got $x"` });
    expect(run).toMatchObject({ outcome: 'waiting_for_input', exit_code: null, output: 'Continue? [y/N] ', state: 'waiting_for_input', prompt: 'confirm', prompt_text: 'Continue? [y/N] ' });
    const sent = await ok(call, 'terminal_send', { id: run.id, text: 'y', keys: ['Enter'] });
    const done = await ok(call, 'terminal_wait', { id: run.id, until: 'exit', timeout_ms: 20_000 });
    expect(done).toMatchObject({ reason: 'exit', exit_code: 0, state: 'idle_at_prompt' });
    expect(`${sent.output}${done.output}`).toBe('got y\n');
  });

  it('recognises a password prompt and keeps the unechoed answer out of the output', async () => {
    const { call } = await connect('secret');
    const run = await ok(call, 'terminal_run', { command: `read -s -p 'Password: ' pw; echo; echo "length \${#pw}"` });
    expect(run).toMatchObject({ outcome: 'waiting_for_input', state: 'waiting_for_input', prompt: 'password', prompt_text: 'Password: ' });
    const sent = await ok(call, 'terminal_send', { id: run.id, text: 'hunter2', keys: ['Enter'] });
    const done = await ok(call, 'terminal_wait', { id: run.id, until: 'exit', timeout_ms: 20_000 });
    expect(done).toMatchObject({ exit_code: 0, state: 'idle_at_prompt' });
    expect(`${sent.output}${done.output}`).toBe('\nlength 7\n');
  });

  it('round-trips a python3 REPL without echoing the input back', async () => {
    const { call } = await connect('python');
    const created = await ok(call, 'terminal_create', { command: 'python3', args: ['-q'] });
    const ready = await ok(call, 'terminal_wait', { id: created.id, until: 'idle', idle_ms: 2000, timeout_ms: 20_000 });
    expect(ready).toMatchObject({ reason: 'waiting_for_input', output: '>>> ', state: 'waiting_for_input', prompt: 'repl' });
    const first = await ok(call, 'terminal_send', { id: created.id, text: 'print(6*7)', keys: ['Enter'], wait_ms: 5000 });
    let output = first.output as string;
    if (!output.includes('>>> ')) output += (await ok(call, 'terminal_wait', { id: created.id, until: 'pattern', pattern: '>>> $' })).output;
    expect(output).toBe('42\n>>> ');
    await ok(call, 'terminal_send', { id: created.id, keys: ['Ctrl-D'] });
    const exited = await ok(call, 'terminal_wait', { id: created.id, until: 'exit', timeout_ms: 20_000 });
    expect(exited).toMatchObject({ reason: 'exit', scope: 'process', state: 'exited', process_exit_code: 0, process_signal: null });
    expect(exited).not.toHaveProperty('exit_code');
  });

  it('sees less take the alternate screen, renders its page, and quits with q', async () => {
    const file = join(dir, 'long.txt');
    writeFileSync(file, Array.from({ length: 500 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
    const { call } = await connect('pager-user');
    const created = await ok(call, 'terminal_create', { rows: 10 });
    const typed = await ok(call, 'terminal_send', { id: created.id, text: `less ${file}`, keys: ['Enter'], wait_ms: 0 });
    const shown = await untilOutput(call, created.id, /row 9/, typed.output);
    expect(shown.state).toBe('alt_screen');
    const screen = await ok(call, 'terminal_read', { id: created.id, mode: 'screen' });
    expect(screen.state).toBe('alt_screen');
    expect((screen.output as string).split('\n').slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, i) => `row ${i + 1}`));
    const paging = await ok(call, 'terminal_send', { id: created.id, keys: ['Space'], wait_ms: 0 });
    await untilOutput(call, created.id, /row 18/, paging.output);
    const paged = await ok(call, 'terminal_read', { id: created.id, mode: 'screen' });
    expect(paged.output).toContain('row 18');
    expect(paged.output).not.toContain('row 5\n');
    await ok(call, 'terminal_send', { id: created.id, text: 'q', wait_ms: 0 });
    const quit = await ok(call, 'terminal_wait', { id: created.id, until: 'exit', timeout_ms: 20_000 });
    expect(quit).toMatchObject({ reason: 'exit', exit_code: 0, state: 'idle_at_prompt' });
  });

  it('interrupts a running command with Ctrl-C and returns to the prompt', async () => {
    const { call } = await connect('interrupt');
    const run = await ok(call, 'terminal_run', { command: 'echo started; sleep 100', timeout_ms: 200 });
    expect(run.outcome).toBe('running');
    // Interrupt the sleep itself, not the line before it runs.
    await untilOutput(call, run.id, /started/, run.output);
    await ok(call, 'terminal_send', { id: run.id, keys: ['Ctrl-C'], wait_ms: 0 });
    const waited = await ok(call, 'terminal_wait', { id: run.id, until: 'exit', timeout_ms: 20_000 });
    expect(waited).toMatchObject({ reason: 'exit', exit_code: 130, state: 'idle_at_prompt' });
    expect((await ok(call, 'terminal_run', { id: run.id, command: 'echo alive' })).output).toBe('alive\n');
  });

  it('reads the whole output of a command session after it exits', async () => {
    const file = join(dir, 'data.txt');
    const content = Array.from({ length: 3000 }, (_, i) => `data line ${i}`).join('\n') + '\n';
    writeFileSync(file, content);
    const { call } = await connect('cat');
    const created = await ok(call, 'terminal_create', { command: 'cat', args: [file] });
    const waited = await ok(call, 'terminal_wait', { id: created.id, until: 'exit', max_bytes: 1024 });
    expect(waited).toMatchObject({ reason: 'exit', state: 'exited', process_exit_code: 0, truncated: true });
    expect(waited.output).toMatch(/^data line 0\n[\s\S]*\.\.\. \d+ bytes omitted \.\.\.\n[\s\S]*data line 2999\n$/);
    // Reading 'all' after exit returns everything, and the cursor persists after exit.
    const all = await ok(call, 'terminal_read', { id: created.id, mode: 'all', max_bytes: 1024 * 1024 });
    expect(all.output).toBe(content);
    expect(all.state).toBe('exited');
    const again = await ok(call, 'terminal_read', { id: created.id });
    expect(again).toMatchObject({ output: '', cursor: all.cursor, state: 'exited' });
    const listed = await ok(call, 'terminal_list');
    expect(listed.terminals).toContainEqual(expect.objectContaining({ id: created.id, state: 'exited', process_exit_code: 0, unread_bytes: 0 }));
    const closed = await ok(call, 'terminal_close', { id: created.id });
    expect(closed).toMatchObject({ id: created.id, process_exit_code: 0, output: '' });
    expect(service.get(created.id)).toBeUndefined();
  });

  it('streams progress notifications during terminal_run when asked', async () => {
    const { client } = await connect('progress');
    const messages: string[] = [];
    const result = (await client.callTool(
      { name: 'terminal_run', arguments: { command: 'for i in 1 2 3; do echo tick$i; sleep 0.1; done' } },
      undefined,
      { onprogress: (progress) => messages.push(progress.message ?? '') },
    )) as ToolResult;
    expect(result.structuredContent).toMatchObject({ exit_code: 0, output: 'tick1\ntick2\ntick3\n' });
    expect(messages.join('')).toBe('tick1\ntick2\ntick3\n');
  });

  it('keeps clients out of each other\'s terminals and hides the user\'s', async () => {
    const a = await connect('alpha');
    const b = await connect('beta');
    const mine = await ok(a.call, 'terminal_create', { command: 'cat' });
    const user = service.create({ source: 'user', command: 'cat' });
    const listedByB = await ok(b.call, 'terminal_list');
    expect(listedByB.terminals.map((t: { id: string }) => t.id)).not.toContain(mine.id);
    const listedByA = await ok(a.call, 'terminal_list');
    expect(listedByA.terminals.map((t: { id: string }) => t.id)).toEqual([mine.id]);

    const foreign = errorText(await b.call('terminal_read', { id: mine.id }));
    const unknown = errorText(await b.call('terminal_read', { id: 'no-such-id' }));
    expect(foreign).toBe(unknown.replace('no-such-id', mine.id));
    expect(foreign).toMatch(/No such terminal/);
    expect(errorText(await a.call('terminal_send', { id: user.id, text: 'x' }))).toMatch(/No such terminal/);
    // Every call that names a terminal answers the developer's tab as an unknown id, and leaves it as it was.
    for (const [name, args] of [
      ['terminal_run', { id: user.id, command: 'echo agent-typed' }],
      ['terminal_read', { id: user.id, mode: 'screen' }],
      ['terminal_wait', { id: user.id, until: 'exit', timeout_ms: 100 }],
      ['terminal_close', { id: user.id, force: true }],
    ] as const) expect(errorText(await a.call(name, args)), name).toMatch(/No such terminal/);
    expect(service.get(user.id)?.status).toBe('running');
    expect(service.read(user.id).data.length).toBe(0);
    expect(errorText(await b.call('terminal_close', { id: mine.id }))).toMatch(/No such terminal/);
    expect(service.get(mine.id)?.status).toBe('running');
    await service.remove(user.id);
  });

  it('answers every bad input with a clear error and keeps working', async () => {
    const { call } = await connect('fuzzer');
    const shell = await ok(call, 'terminal_create', {});
    expect(errorText(await call('terminal_wait', { id: shell.id, until: 'pattern', pattern: '([unclosed' }))).toMatch(/Invalid regular expression/);
    expect(errorText(await call('terminal_wait', { id: shell.id, until: 'pattern' }))).toMatch(/needs a pattern/);
    expect(errorText(await call('terminal_run', { id: shell.id, command: 'true', timeout_ms: -1 }))).toMatch(/timeout_ms must not be negative/);
    expect(errorText(await call('terminal_run', { id: shell.id, command: 'true', timeout_ms: 10_000_000 }))).toMatch(/at most 600000/);
    expect(errorText(await call('terminal_send', { id: shell.id, text: 'x'.repeat(1024 * 1024 + 1) }))).toMatch(/larger than 1 MiB/);
    expect(errorText(await call('terminal_create', { cwd: join(dir, 'missing') }))).toMatch(/cwd does not exist/);
    expect(errorText(await call('terminal_run', { command: 'true', cwd: join(dir, 'missing') }))).toMatch(/cwd does not exist/);
    expect(errorText(await call('terminal_create', { cwd: 'relative/path' }))).toMatch(/absolute path/);
    const keys = errorText(await call('terminal_send', { id: shell.id, keys: ['Enter', 'Hyper-X'] }));
    expect(keys).toMatch(/Unknown key name\(s\): "Hyper-X"/);
    expect(keys).toMatch(/Ctrl-C/);
    expect(errorText(await call('terminal_send', { id: shell.id }))).toMatch(/Nothing to send/);
    expect(errorText(await call('terminal_run', { id: 'nope', command: 'true' }))).toMatch(/No such terminal/);
    const notShell = await ok(call, 'terminal_create', { command: 'cat' });
    expect(errorText(await call('terminal_run', { id: notShell.id, command: 'ls' }))).toMatch(/not a shell/);
    expect(errorText(await call('terminal_create', { command: 'definitely-not-a-program-xyz' }))).toMatch(/definitely-not-a-program-xyz/);
    // Nothing was lost: the shell still runs commands.
    expect(await ok(call, 'terminal_run', { id: shell.id, command: 'echo still fine' })).toMatchObject({ exit_code: 0, output: 'still fine\n' });
  });

  it('hands a validating client each tool\'s error as actionable text, with no structured content against its schema', async () => {
    const { call } = await connect('validating');
    const failures: Array<[string, Record<string, unknown>, RegExp]> = [
      ['terminal_create', { command: 'definitely-not-a-program-xyz' }, /Could not start the program: .*definitely-not-a-program-xyz.*Check the command name/],
      ['terminal_run', { id: 'nope', command: 'true' }, /^No such terminal: "nope"\..*terminal_list.*terminal_create/],
      ['terminal_send', { id: 'nope', text: 'x' }, /^No such terminal: "nope"/],
      ['terminal_read', { id: 'nope' }, /^No such terminal: "nope"/],
      ['terminal_wait', { id: 'nope', until: 'exit' }, /^No such terminal: "nope"/],
      ['terminal_close', { id: 'nope' }, /^No such terminal: "nope"/],
    ];
    for (const [name, args, text] of failures) {
      const result = await call(name, args);
      expect(result.structuredContent, name).toBeUndefined();
      expect(errorText(result), name).toMatch(text);
    }
    // terminal_list has no failure of its own to provoke: one from inside the tool reaches the client the same way.
    for (const failure of [new TerminalToolError('invalid_input', 'Listing failed: try again.'), new Error('list broke')]) {
      const failing: TerminalTool = Object.assign(Object.create(tool) as TerminalTool, {
        list: () => {
          throw failure;
        },
      });
      const result = await (await connect('validating-list', failing)).call('terminal_list');
      expect(result.structuredContent).toBeUndefined();
      expect(errorText(result)).toMatch(/^(Listing failed: try again\.|Internal error: list broke)$/);
    }
  });

  it('refuses a run while another command holds the shell', async () => {
    const { call } = await connect('busy');
    const run = await ok(call, 'terminal_run', { command: 'sleep 30', timeout_ms: 0 });
    expect(errorText(await call('terminal_run', { id: run.id, command: 'ls' }))).toMatch(/busy.*Ctrl-C/);
    await ok(call, 'terminal_close', { id: run.id, force: true });
  });
});
