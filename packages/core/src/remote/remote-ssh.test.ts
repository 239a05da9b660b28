// ptydeck on a remote through real OpenSSH: a test sshd on loopback, a test user with a temporary HOME, the checkout's ptydeck installed for it.
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageVersion } from '../common/package-version.js';
import { bin, buildCore, hostSandbox, runCli, type HostSandbox } from '../testing/host-sandbox.js';
import { until } from '../testing/poll-until.js';
import { canRunSshServer, closeSshServers, processesOfUid, startSshServer, type SshServer } from '../testing/ssh-server.js';

const runnable = canRunSshServer();

describe.runIf(runnable)('a remote over real OpenSSH', () => {
  let server: SshServer;
  let box: HostSandbox;
  const clients: Client[] = [];

  beforeAll(async () => {
    buildCore();
    server = await startSshServer();
    // A local secret in the client's environment: nothing of it may reach the remote.
    box = hostSandbox({ PTYDECK_SSH: server.ssh, PTYDECK_LOCAL_SECRET: 'laptop-only' });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await closeSshServers();
  }, 30_000);

  async function remoteAgent(): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--remote', 'box'], env: box.env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'remote-agent', version: '1' });
    clients.push(client);
    await client.connect(transport);
    return { client, transport, stderr: () => stderr };
  }

  /** An agent's remote shell that printed `marker`, and `ptydeck attach --remote` drawing it, with the ssh it runs. */
  async function attachedToRemoteShell(marker: string) {
    const { client } = await remoteAgent();
    const shell = (await client.callTool({ name: 'terminal_create', arguments: {} })).structuredContent as { id: string };
    await client.callTool({ name: 'terminal_run', arguments: { id: shell.id, command: `echo ${marker}`, timeout_ms: 20_000 } });
    const attach = spawn(process.execPath, [bin, 'attach', '--remote', 'box', shell.id], { env: box.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = { stdout: '', stderr: '' };
    attach.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
    attach.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => attach.once('exit', resolve));
    await until(() => out.stdout.includes(marker), 'the remote screen is drawn');
    const ssh = childSsh(attach.pid!);
    expect(ssh).toBeDefined();
    return { client, shell, attach, out, exited, ssh };
  }

  it('adds, lists and removes remotes, refusing a destination ssh would read as an option', async () => {
    expect((await runCli(box, ['remote', 'add', 'box', server.alias])).code).toBe(0);
    expect((await runCli(box, ['remote', 'add', 'spare', 'me@elsewhere'])).code).toBe(0);
    const listed = await runCli(box, ['remote', 'ls', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([
      { name: 'box', destination: server.alias },
      { name: 'spare', destination: 'me@elsewhere' },
    ]);
    const injected = await runCli(box, ['remote', 'add', 'evil', '--', '-oProxyCommand=touch /tmp/pwned']);
    expect(injected.code).toBe(2);
    expect(injected.stderr).toContain("starts with '-', which ssh would read as an option");
    expect((await runCli(box, ['remote', 'rm', 'spare'])).code).toBe(0);
    expect(JSON.parse((await runCli(box, ['remote', 'ls', '--json'])).stdout)).toEqual([{ name: 'box', destination: server.alias }]);
  });

  it('a remote without ptydeck: one line saying where it looked and what to run', async () => {
    server.uninstall();
    const listed = await runCli(box, ['ls', '--remote', 'box']);
    expect(listed.code).toBe(1);
    const lines = listed.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ptydeck: no ptydeck on remote 'box' \(ptydeck-test-box\); looked in PATH \(.*\), \/bin\/sh -lc "command -v ptydeck", .*\.local\/bin.*: install ptydeck \S+ there: .*npm install -g/);
  });

  it("a remote with an old ptydeck: the agent's MCP server ends with one line naming both versions, and the old one runs nothing", async () => {
    server.install('#!/bin/sh\nif [ "$1" = --version ]; then echo "ptydeck 0.0.1 (host protocol 0)"; exit 0; fi\necho ran >> "$HOME/ran"\n');
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--remote', 'box'], env: box.env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'old-remote', version: '1' });
    await expect(client.connect(transport)).rejects.toThrow();
    await until(() => /host protocol 0/.test(stderr), 'the one line is written');
    expect(stderr).toMatch(/ptydeck mcp: the ptydeck on remote 'box' \(\S+\/\.local\/bin\/ptydeck\) is 0\.0\.1 \(host protocol 0\); this ptydeck is \S+ \(host protocol \d+\): install ptydeck/);
    expect(() => readFileSync(`${server.home}/ran`)).toThrow();
  });

  it("an agent's MCP server on a remote ssh cannot reach: the agent is told it could not reach it, not that a link dropped and terminals keep running", async () => {
    // Nothing listens on port 1: ssh's connection is refused at once.
    expect((await runCli(box, ['remote', 'add', 'refused', 'ssh://nobody@127.0.0.1:1'])).code).toBe(0);
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--remote', 'refused'], env: box.env, stderr: 'pipe' });
    const client = new Client({ name: 'remote-agent', version: '1' });
    clients.push(client);
    const failed = await client.connect(transport).then(() => undefined, (error: Error) => error.message);
    expect(failed).toMatch(/Could not reach remote 'refused' \(ssh:\/\/nobody@127\.0\.0\.1:1\) through ssh: .*Connection refused\. This ptydeck MCP server ends/);
    expect(failed).not.toMatch(/dropped|keep running/);
    expect((await runCli(box, ['remote', 'rm', 'refused'])).code).toBe(0);
  });

  it("an agent's shells run on the remote: exit codes, the remote home, nothing of the local environment", async () => {
    server.install();
    const { client } = await remoteAgent();
    const created = (await client.callTool({ name: 'terminal_create', arguments: {} })).structuredContent as { id: string; cwd: string };
    expect(created.cwd).toBe(server.home);
    const run = (await client.callTool({ name: 'terminal_run', arguments: { id: created.id, command: 'id -un; echo "secret=${PTYDECK_LOCAL_SECRET:-none}"; (exit 7)', timeout_ms: 20_000 } })).structuredContent as {
      exit_code: number;
      output: string;
    };
    expect(run.exit_code).toBe(7);
    expect(run.output).toContain(server.user);
    expect(run.output).toContain('secret=none');
    const listed = await runCli(box, ['ls', '--remote', 'box', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((s: { id: string }) => s.id)).toContain(created.id);
  });

  it('attach --remote shows the remote session, reconnects by itself when ssh is killed, and exits with the session', async () => {
    const { client, shell, attach, out, exited, ssh } = await attachedToRemoteShell('attach-marker-1');
    process.kill(ssh!, 'SIGKILL');
    await until(() => out.stderr.includes('reconnecting to box'), 'attach says it reconnects');
    await until(() => childSsh(attach.pid!) !== undefined && childSsh(attach.pid!) !== ssh, 'a new ssh runs');
    await client.callTool({ name: 'terminal_send', arguments: { id: shell.id, text: 'echo attach-marker-2; exit 5', keys: ['Enter'], wait_ms: 0 } });
    expect(await exited).toBe(5);
    expect(out.stdout).toContain('attach-marker-2');
  }, 60_000);

  it('attach --remote keeps reconnecting while the box cannot be reached yet (ssh refused), and goes on once it can', async () => {
    const { client, shell, attach, out, exited, ssh } = await attachedToRemoteShell('outage-marker-1');
    const wrapper = readFileSync(server.ssh, 'utf8');
    const setSsh = (script: string) => {
      writeFileSync(`${server.ssh}.next`, script, { mode: 0o755 });
      renameSync(`${server.ssh}.next`, server.ssh);
    };
    // The network is gone: each reconnect's ssh fails to connect, as ssh does (exit 255).
    setSsh('#!/bin/sh\necho "ssh: connect to host box port 22: Network is unreachable" >&2\nexit 255\n');
    try {
      process.kill(ssh!, 'SIGKILL');
      await until(() => /Network is unreachable[\s\S]*box cannot be reached yet; trying again in [\d.]+ s \(2 failed/.test(out.stderr) || attach.exitCode !== null, 'two reconnects failed');
      expect(attach.exitCode).toBeNull();
    } finally {
      setSsh(wrapper);
    }
    await until(() => (out.stdout.match(/outage-marker-1/g) ?? []).length >= 2 || attach.exitCode !== null, 'the screen is drawn again');
    await client.callTool({ name: 'terminal_send', arguments: { id: shell.id, text: 'echo outage-marker-2; exit 6', keys: ['Enter'], wait_ms: 0 } });
    expect(await exited).toBe(6);
    expect(out.stdout).toContain('outage-marker-2');
  }, 60_000);

  it("SIGKILL of ssh mid-flood: a call while the link is down gets an error within 2 s, the session runs on, and after the reconnect its reads go on from its cursor: no line lost, none repeated", async () => {
    const { client, transport, stderr } = await remoteAgent();
    const shell = (await client.callTool({ name: 'terminal_create', arguments: {} })).structuredContent as { id: string };
    const read = async () => {
      const answer = await client.callTool({ name: 'terminal_read', arguments: { id: shell.id, mode: 'new', max_bytes: 1048576, wait_ms: 5000 } });
      if (!answer.isError) return (answer.structuredContent as { output: string }).output;
      const text = JSON.stringify(answer.content);
      // While the link is down, and only then, reads fail; any other failure (not this agent's terminal) is the test's.
      if (!/reconnecting to box/.test(text)) throw new Error(`terminal_read failed: ${text}`);
      return undefined;
    };
    await read();
    // Numbered lines, slowly enough to be mid-way at the kill.
    await client.callTool({ name: 'terminal_send', arguments: { id: shell.id, text: 'for i in $(seq 1 6000); do echo "line $i"; [ $((i % 200)) = 0 ] && sleep 0.05; done; echo flood-done', keys: ['Enter'], wait_ms: 0 } });
    let seen = '';
    while (!/^line 300\r?$/m.test(seen)) seen += (await read()) ?? '';
    const ssh = childSsh(transport.pid!);
    expect(ssh).toBeDefined();
    // The killed ssh is a client of the connection's master, which holds its pipes: a call sent before the master
    // closes them still gets through, and the bridge learns of the drop a moment later. The call is made once it
    // has, and ssh fails meanwhile, so the reconnect cannot beat the call: this is the outage an agent can meet.
    const dropSeen = new Promise<void>((resolve) => {
      const check = () => {
        if (!/reconnecting to box in \d+ ms/.test(stderr())) return;
        transport.stderr?.off('data', check);
        resolve();
      };
      transport.stderr?.on('data', check);
    });
    const wrapper = readFileSync(server.ssh, 'utf8');
    const setSsh = (script: string) => {
      writeFileSync(`${server.ssh}.next`, script, { mode: 0o755 });
      renameSync(`${server.ssh}.next`, server.ssh);
    };
    setSsh('#!/bin/sh\necho "ssh: connect to host box port 22: Connection refused" >&2\nexit 255\n');
    try {
      process.kill(ssh!, 'SIGKILL');
      await dropSeen;
      const during = await client.callTool({ name: 'terminal_list', arguments: {} }, undefined, { timeout: 2000 });
      expect(during).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/ssh link to remote 'box'.*dropped.*reconnecting to box.*keep running/) }] });
    } finally {
      setSsh(wrapper);
    }
    // Back by itself: the same agent owns the same terminal there, its read position with it.
    for (;;) {
      const more = await read();
      if (more !== undefined) seen += more;
      if (/^flood-done\r?$/m.test(seen)) break;
      // Reads fail at once while the link is down: no event tells this client when it is back.
      if (more === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(stderr()).toContain('reconnected to box');
    const numbers = [...seen.matchAll(/^line (\d+)\r?$/gm)].map((m) => Number(m[1]));
    expect(numbers).toHaveLength(6000);
    expect(numbers.every((n, i) => n === i + 1)).toBe(true);
  }, 120_000);

  it('one ssh connection per remote: an agent, `ls --remote` twice and `attach --remote` all run in the one master, in a private directory of the state dir', async () => {
    const { client } = await remoteAgent();
    const shell = (await client.callTool({ name: 'terminal_create', arguments: {} })).structuredContent as { id: string };
    const before = server.connections();
    for (let i = 0; i < 2; i++) expect((await runCli(box, ['ls', '--remote', 'box', '--json'])).code).toBe(0);
    const attach = spawn(process.execPath, [bin, 'attach', '--remote', 'box', shell.id], { env: box.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => attach.once('exit', resolve));
    await client.callTool({ name: 'terminal_send', arguments: { id: shell.id, text: 'exit 3', keys: ['Enter'], wait_ms: 0 } });
    expect(await exited).toBe(3);
    expect(server.connections()).toBe(before);
    const controlDir = join(box.env.PTYDECK_STATE_DIR!, 'ssh');
    expect(statSync(controlDir).mode & 0o777).toBe(0o700);
    const [socket] = readdirSync(controlDir);
    const check = spawnSync(server.ssh, ['-o', `ControlPath=${join(controlDir, socket!)}`, '-O', 'check', '--', server.alias], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  }, 60_000);

  it("a box-side ptydeck's output and messages reach the developer's terminal drawn, never as requests: no OSC 52, title, report request or C1", async () => {
    await runCli(box, ['remote', 'add', 'box', server.alias]); // Already there after the first test.
    // Anything of the remote user's (a box-side agent's shell) can put this first in the remote's PATH.
    const hostile = '\\033]52;c;cHduZWQ=\\007\\302\\2350;spoof\\302\\234\\033[6n\\033P+q544e\\033\\\\\\302\\233c';
    server.install(
      [
        '#!/bin/sh',
        `if [ "$1" = --version ]; then echo "ptydeck ${packageVersion()} (host protocol ${HOST_PROTOCOL_VERSION})"; exit 0; fi`,
        `printf 'row-out${hostile}\\033[1mbold\\033[0m\\n'`,
        `printf 'row-err${hostile}\\n' >&2`,
        `if [ "$1" = attach ]; then printf 'ptydeck-remote: version /x${hostile}: ptydeck 9 (host protocol 9)\\n' >&2; exit 86; fi`,
        'exit 0',
        '',
      ].join('\n'),
    );
    try {
      const unsafe = /\x1b\]|\x1bP|\x1b\[6n|[\u0080-\u009f]/;
      const listed = await runCli(box, ['ls', '--remote', 'box']);
      expect(listed.stdout).toContain('row-out');
      expect(listed.stdout).toContain('\x1b[1mbold\x1b[0m');
      // Named as the box's, not this machine's.
      expect(listed.stderr).toMatch(/^box: row-err/m);
      expect(listed.stdout).not.toMatch(unsafe);
      expect(listed.stderr).not.toMatch(unsafe);
      const attached = await runCli(box, ['attach', '--remote', 'box', 'anything']);
      expect(attached.code).toBe(1);
      expect(attached.stderr).toMatch(/the ptydeck on remote 'box' \(\/x.*\) is 9 \(host protocol 9\)/);
      expect(attached.stdout).not.toMatch(unsafe);
      expect(attached.stderr).not.toMatch(unsafe);
    } finally {
      server.install();
    }
  }, 60_000);

  // Last: it ends the box. The remote host is killed, not stopped, so it cannot remove its shells' rcfile directory
  // in /tmp (its user's processes start without this run's TMPDIR); the kit removes what the user left there.
  it("closing the box leaves nothing of its user's in /tmp", async () => {
    const owned = () =>
      readdirSync('/tmp').filter((name) => {
        try {
          return lstatSync(join('/tmp', name)).uid === server.uid;
        } catch {
          return false;
        }
      });
    // The remote host's /tmp/ptydeck-shell-* from the shells above.
    expect(owned().length).toBeGreaterThan(0);
    await server.close();
    expect(owned()).toEqual([]);
  }, 30_000);
});

/** The ssh process `ptydeck mcp --remote` runs (its child, named ssh). */
function childSsh(parent: number): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const match = /^\d+ \((.*)\) \S+ (\d+)/s.exec(stat);
      if (match && match[1] === 'ssh' && Number(match[2]) === parent) return Number(name);
    } catch {
      // Gone.
    }
  }
  return undefined;
}
