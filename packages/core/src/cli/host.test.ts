import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { writeDiscovery } from '../common/discovery.js';
import { HOST_ALLOCATOR_ENV, HOST_NODE_FLAGS } from '../common/host-node-flags.js';
import { sessionStoreDir } from '../persist/session-store.js';
import { metaPath } from '../persist/store-format.js';
import { until } from '../testing/poll-until.js';
import { bin, buildCore, runCli as cli, discoveryOf as discovery, hostSandbox, isAlive, lockedPid, processesOf, reapAfterEach, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';

/**
 * One ptydeck host per state directory, with real processes: `ptydeck mcp`
 * started by the official MCP SDK client over stdio, a detached `ptydeck host`,
 * `ptydeck stop`, and the process table read from /proc. Every test has a
 * state directory and HOME of its own, and leaves no process behind.
 */
beforeAll(buildCore, 120_000);

const { track, clients } = reapAfterEach();

function sandbox(extra: Record<string, string> = {}): HostSandbox {
  const made = hostSandbox(extra);
  track(made);
  return made;
}

/** An agent on stdio through `ptydeck mcp`, closed after each test. */
async function agent(box: HostSandbox, name = 'host-test-agent', cwd?: string) {
  return stdioAgent(box, name, { cwd, clients });
}

/** Live `ptydeck host` processes of a sandbox. */
function hostsOf(box: HostSandbox): number[] {
  return processesOf(box.stateDir).filter((pid) => {
    try {
      // node [flags (HOST_NODE_FLAGS)] <bin> host
      const args = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
      const at = args.indexOf(bin);
      return at > 0 && args[at + 1] === 'host';
    } catch {
      return false;
    }
  });
}

async function create(client: Client, args: Record<string, unknown>): Promise<{ id: string; pid: number; cwd: string }> {
  const made = await client.callTool({ name: 'terminal_create', arguments: args });
  expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
  return made.structuredContent as { id: string; pid: number; cwd: string };
}

describe('one ptydeck host per state directory', () => {
  it('five concurrent `ptydeck mcp` starters end with one host, which all of them joined', async () => {
    const box = sandbox();
    const agents = await Promise.all([1, 2, 3, 4, 5].map((n) => agent(box, `starter-${n}`)));
    for (const { client } of agents) expect((await client.callTool({ name: 'terminal_list', arguments: {} })).isError).toBeFalsy();
    const record = discovery(box);
    expect(record.protocol).toBe(HOST_PROTOCOL_VERSION);
    expect(hostsOf(box)).toEqual([record.pid]);
    // Started with the host's node flags (its young generation's size: bench/README.md, "Memory").
    expect(readFileSync(`/proc/${record.pid}/cmdline`, 'latin1').split('\0').slice(1, 1 + HOST_NODE_FLAGS.length)).toEqual(HOST_NODE_FLAGS);
    expect(lockedPid(box.stateDir)).toBe(record.pid);
    for (const { stderr } of agents) expect(stderr()).toContain(`connected to the running ptydeck at ${record.url}`);
    expect(statSync(join(box.stateDir, 'host.log')).mode & 0o777).toBe(0o600);
  });

  it("the host starts with its allocator settings, and its sessions' programs do not inherit them", async () => {
    const box = sandbox();
    const { client } = await agent(box);
    const environ = readFileSync(`/proc/${discovery(box).pid}/environ`, 'utf8').split('\0');
    for (const [name, value] of Object.entries(HOST_ALLOCATOR_ENV)) expect(environ).toContain(`${name}=${value}`);
    const shell = await create(client, {});
    const names = [...Object.keys(HOST_ALLOCATOR_ENV), 'PTYDECK_HOST_ADDED_ENV'];
    const command = `echo ${names.map((name) => `"${name}=\${${name}-unset}"`).join(' ')}`;
    const ran = await client.callTool({ name: 'terminal_run', arguments: { id: shell.id, command, timeout_ms: 20_000 } });
    const output = (ran.structuredContent as { output: string }).output;
    for (const name of names) expect(output).toContain(`${name}=unset`);
  });

  it('a discovery file and lock left by a dead host are replaced at once', async () => {
    const box = sandbox();
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '']);
      child.once('exit', () => resolve(child.pid!));
    });
    writeDiscovery({ url: 'http://127.0.0.1:9', token: 'old', pid: dead, instance: 'old', protocol: HOST_PROTOCOL_VERSION }, box.stateDir);
    symlinkSync(`${dead}:1`, join(box.stateDir, 'host.lock'));
    const { client, stderr } = await agent(box);
    expect((await client.callTool({ name: 'terminal_list', arguments: {} })).isError).toBeFalsy();
    const record = discovery(box);
    expect(record.pid).not.toBe(dead);
    expect(hostsOf(box)).toEqual([record.pid]);
    expect(readlinkSync(join(box.stateDir, 'host.lock'))).toMatch(new RegExp(`^${record.pid}:\\d+$`));
    expect(stderr()).toContain('started one');
    expect(readFileSync(join(box.stateDir, 'host.log'), 'utf8')).toContain(`replaced a stale ${join(box.stateDir, 'server.json')} (pid ${dead} is gone)`);
  });

  it("an agent's session outlives the agent: another client sees it; `ptydeck stop` refuses while it runs (and from inside a session), --force ends it all", async () => {
    const box = sandbox();
    // Where the agent works, not where the host started (the home directory), is where its shells start.
    const project = join(box.home, 'project ü');
    mkdirSync(project);
    // Unsandboxed: the sleeper's pid is checked on this machine, and a sandbox gives pids as seen inside it.
    const first = await stdioAgent(box, 'sleeper-agent', { cwd: project, clients, args: ['--sandbox', 'off'] });
    const sleeper = await create(first.client, { command: 'sleep', args: ['300'] });
    expect(sleeper).toMatchObject({ cwd: project });
    const hostPid = discovery(box).pid;
    await first.client.close();
    expect(isAlive(sleeper.pid)).toBe(true);

    const refused = await cli(box, ['stop']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("agents' sessions are running");
    expect(refused.stderr).toContain(sleeper.id);
    expect(refused.stderr).toContain('sleeper-agent');
    expect(isAlive(sleeper.pid)).toBe(true);

    // A process in a session (here an agent's shell) may not stop the host, even with --force. Unsandboxed, the
    // shell finds the host and the host's judge refuses it; sandboxed, it does not even find the host.
    const second = await stdioAgent(box, 'shell-agent', { clients, args: ['--sandbox', 'off'] });
    const stopFromInside = `'${process.execPath}' '${bin}' stop --force; echo "exit=$?"`;
    const shell = await create(second.client, {});
    const inside = await second.client.callTool({ name: 'terminal_run', arguments: { id: shell.id, command: stopFromInside, timeout_ms: 20_000 } });
    const insideText = JSON.stringify(inside.structuredContent);
    expect(insideText).toContain('exit=1');
    expect(insideText).toContain('refused');
    const third = await agent(box, 'sandboxed-agent');
    const fenced = await create(third.client, {});
    const fencedText = JSON.stringify((await third.client.callTool({ name: 'terminal_run', arguments: { id: fenced.id, command: stopFromInside, timeout_ms: 20_000 } })).structuredContent);
    expect(fencedText).toContain('exit=1');
    expect(isAlive(hostPid)).toBe(true);
    await second.client.close();
    await third.client.close();

    const stopped = await cli(box, ['stop', '--force']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain(`Stopped the ptydeck host (pid ${hostPid}); ended 3 running sessions`);
    expect(isAlive(hostPid)).toBe(false);
    expect(processesOf(box.stateDir)).toEqual([]);
  });

  it("SIGKILL of the host: the agent's next call gets a clear error within 2 s, and the call after it works against a new host", async () => {
    const box = sandbox();
    const { client, stderr } = await agent(box);
    const { id } = await create(client, { command: 'sleep', args: ['300'] });
    // Its record on disk first, so that what the next host lists does not depend on when the store wrote.
    await until(() => existsSync(metaPath(sessionStoreDir(box.stateDir), id)), 'the store wrote the session');
    const killed = discovery(box).pid;
    process.kill(killed, 'SIGKILL');
    // The SDK's own timeout bounds the wait: a hang would fail with "Request timed out".
    const error = await client.callTool({ name: 'terminal_list', arguments: {} }, undefined, { timeout: 2000 });
    // An error result, which the model reads, not a protocol error.
    expect(error).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(new RegExp(`ptydeck host \\(pid ${killed}\\).*is gone.*this session is gone with it.*Call again`)) }] });
    const after = await client.callTool({ name: 'terminal_list', arguments: {} });
    expect(after.isError, JSON.stringify(after.content)).toBeFalsy();
    // A new host, a new MCP session: the old terminal is there only as lost (lost-sessions.test.ts), nothing runs.
    expect((after.structuredContent as { terminals: unknown[] }).terminals).toEqual([expect.objectContaining({ id, state: 'lost' })]);
    const record = discovery(box);
    expect(record.pid).not.toBe(killed);
    expect(hostsOf(box)).toEqual([record.pid]);
    expect(stderr()).toContain(`joined the ptydeck host at ${record.url} (pid ${record.pid}) with a new session`);
    expect(await create(client, {})).toMatchObject({ id: expect.any(String) });
  });

  it('SIGKILL of the host during a call: the call ends with the error instead of waiting for an answer that cannot come', async () => {
    const box = sandbox();
    const { client } = await agent(box);
    const shell = await create(client, {});
    const killed = discovery(box).pid;
    const waiting = client.callTool({ name: 'terminal_run', arguments: { id: shell.id, command: 'sleep 120', timeout_ms: 100_000 } }, undefined, { timeout: 110_000 });
    await until(() => processesOf(box.stateDir).some((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1') === 'sleep\x00120\x00'), 'the command runs');
    process.kill(killed, 'SIGKILL');
    // Resolved as an error result with the text, not rejected with an McpError.
    expect(await waiting).toEqual({ isError: true, content: [{ type: 'text', text: expect.stringMatching(new RegExp(`ptydeck host \\(pid ${killed}\\).*is gone.*this session is gone with it`)) }] });
    // It was told: the next call goes straight to a new host.
    const after = await client.callTool({ name: 'terminal_list', arguments: {} });
    expect(after.isError, JSON.stringify(after.content)).toBeFalsy();
    expect(discovery(box).pid).not.toBe(killed);
  });

  it('a newer client stops an older host that runs nothing, and leaves one that runs something, saying what to do', async () => {
    const box = sandbox();
    /** Rewrites server.json as a host from before the host protocol would have written it. */
    const pretendOlder = () => {
      const { protocol: _dropped, ...older } = JSON.parse(readFileSync(join(box.stateDir, 'server.json'), 'utf8'));
      writeDiscovery(older, box.stateDir);
    };
    const first = await agent(box, 'busy-agent');
    const sleeper = await create(first.client, { command: 'sleep', args: ['300'] });
    const older = discovery(box);
    pretendOlder();
    const refused = await cli(box, ['mcp']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `ptydeck: the running ptydeck host (pid ${older.pid}) speaks host protocol 0, this ptydeck speaks ${HOST_PROTOCOL_VERSION}: run \`ptydeck stop\` (it ends the sessions in it), then try again\n`,
    );
    expect(isAlive(older.pid)).toBe(true);

    expect((await first.client.callTool({ name: 'terminal_close', arguments: { id: sleeper.id } })).isError).toBeFalsy();
    const { client, stderr } = await agent(box);
    expect((await client.callTool({ name: 'terminal_list', arguments: {} })).isError).toBeFalsy();
    expect(stderr()).toContain(`stopped an older ptydeck host (pid ${older.pid}, host protocol 0) that ran nothing`);
    expect(isAlive(older.pid)).toBe(false);
    const newer = discovery(box);
    expect(newer).toMatchObject({ protocol: HOST_PROTOCOL_VERSION });
    expect(hostsOf(box)).toEqual([newer.pid]);
  });

  it('`ptydeck` starts a host and prints a panel link, and `ptydeck serve` then refuses, pointing at `ptydeck url`', async () => {
    const box = sandbox();
    const opened = await cli(box, []);
    expect(opened.code, opened.stderr).toBe(0);
    const record = discovery(box);
    expect(opened.stdout).toContain(`ptydeck started at ${record.url} (pid ${record.pid})`);
    // Said once: stdout's line, not a second one on stderr.
    expect(opened.stderr).not.toContain('started one');
    expect(opened.stdout).toMatch(new RegExp(`Open the panel \\(one-time link\\): ${record.url}/#ticket=\\S+`));
    const again = await cli(box, []);
    expect(again.stdout).toContain(`ptydeck is running at ${record.url} (pid ${record.pid})`);

    const serve = await cli(box, ['serve']);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(`a ptydeck host already runs for ${box.stateDir} (pid ${record.pid}`);
    expect(serve.stderr).toContain('`ptydeck url`');
    expect(hostsOf(box)).toEqual([record.pid]);
  });

  it('an unused host exits by itself after its idle period', async () => {
    const box = sandbox({ PTYDECK_IDLE_EXIT: '1' });
    // The host in the foreground, so nothing has to reach it within its 1 s: `ptydeck` starting one detached and then
    // asking it for a link can find it already gone when a loaded machine holds the client back that long.
    const host = await cli(box, ['host']);
    expect(host.code, host.stderr).toBe(0);
    expect(host.stderr).toContain('no sessions, chats or clients for 1 s: stopping');
    expect(processesOf(box.stateDir)).toEqual([]);
  });
});
