import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SessionInfo } from '@ptydeck/contract';
import { sessionStoreDir } from '../persist/session-store.js';
import { closedCommandsPath, metaPath, outputPath } from '../persist/store-format.js';
import { until } from '../testing/poll-until.js';
import { STOP_PATH } from '../common/stop-protocol.js';
import { PanelSession, readPanelMessage } from '../client/panel-session.js';
import { buildCore, discoveryOf, hostSandbox, isAlive, lockedPid, processesOf, reap, runCli, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';

/**
 * Issue 24's "Done when", agent side, with real processes: a host started by
 * `ptydeck mcp` is SIGKILLed while an agent's terminal has printed a marker and
 * a developer's tab has scrollback; the same `ptydeck mcp` starts the next host,
 * where the agent finds its terminal lost with the marker, `ptydeck ls` shows
 * both lost, and no other agent can reach the agent's.
 */
beforeAll(buildCore, 120_000);

const sandboxes: HostSandbox[] = [];
const clients: Client[] = [];
const panels: PanelSession[] = [];
afterEach(async () => {
  for (const panel of panels.splice(0)) panel.close();
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  for (const box of sandboxes.splice(0)) {
    reap(box);
    await until(() => processesOf(box.stateDir).length === 0, `no process of ${box.stateDir} is left`);
  }
});

type ToolResult = { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, any> };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** What a call gets when the host died under it: an error result the model reads, not a protocol error. */
const gone = { isError: true, content: [{ type: 'text', text: expect.stringMatching(/is gone .*this session is gone with it/) }] };

/** A developer's tab, opened through the panel protocol as the panel opens one, with a line typed into it. */
async function developerTab(box: HostSandbox, line: string): Promise<SessionInfo> {
  const panel = await PanelSession.connect('lost-sessions test', { stateDir: box.stateDir, read: readPanelMessage });
  panels.push(panel);
  const created = new Promise<SessionInfo>((resolve) => {
    const off = panel.channel.onCreated((answer) => {
      if (answer.requestId !== requestId) return;
      off();
      resolve(answer.info);
    });
  });
  const requestId = panel.channel.create({ cols: 80, rows: 24 });
  const info = await created;
  panel.channel.input(info.id, `${line}\r`);
  return info;
}

/** What the host's session store has written of a session's output so far. */
function stored(box: HostSandbox, id: string): string {
  const file = outputPath(sessionStoreDir(box.stateDir), id);
  return existsSync(file) ? readFileSync(file, 'latin1') : '';
}

describe('a host SIGKILLed with sessions', () => {
  it("gives them to the next host lost: the same agent reads its marker there, `ptydeck ls` shows both, and another agent cannot reach the agent's", async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const first = await stdioAgent(box, 'lost-agent', { clients });
    const made = await call(first.client, 'terminal_create', { command: 'bash', args: ['--norc', '--noprofile', '-c', 'echo agent-MARKER-$((40+2)); exec sleep 300'] });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    const agentId = String(made.structuredContent!.id);
    const dev = await developerTab(box, 'echo dev-SCROLLBACK-$((2+3))');
    // The echo of the typed line holds `$((2+3))`, not the 5: the stored text is the command's output.
    await until(() => stored(box, agentId).includes('agent-MARKER-42') && stored(box, dev.id).includes('dev-SCROLLBACK-5'), 'the store wrote both sessions');

    const oldHost = discoveryOf(box).pid;
    process.kill(oldHost, 'SIGKILL');
    await until(() => !isAlive(oldHost), 'the old host is gone');
    // The call that finds the host gone is told so; the next one starts a new host through the same `ptydeck mcp`.
    expect(await call(first.client, 'terminal_list')).toMatchObject(gone);
    const read = await call(first.client, 'terminal_read', { id: agentId });
    expect(read.isError, JSON.stringify(read.content)).toBeFalsy();
    expect(discoveryOf(box).pid).not.toBe(oldHost);
    expect(read.structuredContent).toMatchObject({ id: agentId, state: 'lost', unwritten_bytes: expect.any(Number) });
    expect(read.structuredContent!.output).toContain('agent-MARKER-42');

    const listed = await call(first.client, 'terminal_list');
    expect(listed.structuredContent!.terminals).toEqual([expect.objectContaining({ id: agentId, state: 'lost' })]);
    const typed = await call(first.client, 'terminal_send', { id: agentId, text: 'echo again', keys: ['Enter'] });
    expect(typed.isError).toBe(true);
    expect(typed.content[0]?.text).toMatch(/process is gone/);

    const ls = await runCli(box, ['ls', '--json']);
    expect(ls.code, ls.stderr).toBe(0);
    const entries = JSON.parse(ls.stdout) as Array<{ id: string; state: string; source: string }>;
    expect(entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: agentId, state: 'lost', source: 'agent' }), expect.objectContaining({ id: dev.id, state: 'lost', source: 'user' })]),
    );

    const other = await stdioAgent(box, 'other-agent', { clients });
    const theirs = await call(other.client, 'terminal_read', { id: agentId });
    expect(theirs.isError).toBe(true);
    expect(theirs.content[0]?.text).toMatch(/^No such terminal/);
    expect((await call(other.client, 'terminal_list')).structuredContent!.terminals).toEqual([]);
  });

  it("keeps the agent's read position through three host changes (SIGKILL, SIGTERM, SIGKILL): nothing read is unread again", async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const { client } = await stdioAgent(box, 'reading-agent', { clients });
    const made = await call(client, 'terminal_create', { command: 'bash', args: ['--norc', '--noprofile', '-c', 'echo read-MARKER-$((40+2)); exec sleep 300'] });
    const id = String(made.structuredContent!.id);
    await until(() => stored(box, id).includes('read-MARKER-42'), 'the store wrote the marker');
    const unread = async () => {
      const listed = await call(client, 'terminal_list');
      expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
      return listed.structuredContent!.terminals.map((t: { id: string; unread_bytes: number }) => [t.id, t.unread_bytes]);
    };
    const kill = async () => {
      const pid = discoveryOf(box).pid;
      process.kill(pid, 'SIGKILL');
      await until(() => !isAlive(pid), 'the host is gone');
      expect(await call(client, 'terminal_list')).toMatchObject(gone);
    };

    await kill();
    expect((await call(client, 'terminal_read', { id })).structuredContent!.output).toContain('read-MARKER-42');
    expect(await unread()).toEqual([[id, 0]]);

    // A SIGTERM (systemd, a logout) is a stop the developer did not ask for: unlike `ptydeck stop`, it keeps the sessions.
    const host = discoveryOf(box).pid;
    process.kill(host, 'SIGTERM');
    await until(() => !isAlive(host) && lockedPid(box.stateDir) === undefined, 'the stopped host is gone');
    // The developer starts ptydeck again. The agent's next call is told the host went; the one after joins the new host.
    // Told it was stopped, or gone: the stop notice rides the event stream the bridge opens after it rejoined a host,
    // and under load a SIGTERM can come before that stream is up (stopped-host.test.ts hears it on a settled link).
    expect((await runCli(box, [])).code).toBe(0);
    expect((await call(client, 'terminal_list')).content[0]?.text).toMatch(/^(ptydeck was stopped \(`ptydeck stop`, or SIGTERM or SIGINT to its host\)|The ptydeck host \(pid \d+\) at \S+ is gone)/);
    expect(await unread()).toEqual([[id, 0]]);

    await kill();
    expect(await unread()).toEqual([[id, 0]]);
    expect((await call(client, 'terminal_read', { id })).structuredContent!.output).toBe('');
  });

  it('keeps nothing after `ptydeck stop --force`: the next host brings back neither the ended sessions nor the exited one, and the store holds none of their files', async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const { client } = await stdioAgent(box, 'stopping-agent', { clients });
    const ids: string[] = [];
    // The second still prints when the stop comes: the store is writing it while its files are removed.
    for (const line of ['echo one-MARKER-$((1+1)); exec sleep 300', 'while :; do echo two-FLOOD-$((2+2)); done', 'echo done-MARKER-$((3+3))']) {
      const made = await call(client, 'terminal_create', { command: 'bash', args: ['--norc', '--noprofile', '-c', line] });
      expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
      ids.push(String(made.structuredContent!.id));
    }
    // A shell with ptydeck's marks, where the agent ran a command: what it ran outlives the stop, in the Timeline.
    const shell = await call(client, 'terminal_create', {});
    const ran = await call(client, 'terminal_run', { id: String(shell.structuredContent!.id), command: 'echo ran-$((5+5))' });
    expect(ran.isError, JSON.stringify(ran.content)).toBeFalsy();
    ids.push(String(shell.structuredContent!.id));
    // The third has exited by then; all are on disk, as they would be for a kill.
    await until(() => stored(box, ids[0]!).includes('one-MARKER-2') && stored(box, ids[1]!).includes('two-FLOOD-4') && stored(box, ids[2]!).includes('done-MARKER-6'), 'the store wrote the three sessions');

    const host = discoveryOf(box).pid;
    const stopped = await runCli(box, ['stop', '--force']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain('ended 3 running sessions');
    await until(() => !isAlive(host) && lockedPid(box.stateDir) === undefined, 'the stopped host is gone');
    for (const id of ids) {
      expect(existsSync(metaPath(sessionStoreDir(box.stateDir), id)), `${id}'s record`).toBe(false);
      expect(existsSync(outputPath(sessionStoreDir(box.stateDir), id)), `${id}'s output`).toBe(false);
    }
    expect(readFileSync(closedCommandsPath(sessionStoreDir(box.stateDir)), 'utf8')).toContain('echo ran-$((5+5))');

    expect((await runCli(box, [])).code).toBe(0);
    const ls = await runCli(box, ['ls', '--json']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual([]);
    // The agent's next call hears of the stop; the one after joins the new host and finds nothing of its own.
    expect((await call(client, 'terminal_list')).content[0]?.text).toMatch(/^ptydeck was stopped/);
    expect((await call(client, 'terminal_list')).structuredContent!.terminals).toEqual([]);
  });

  it('keeps the exited sessions of an idle host retired for a newer one (an upgrade: POST /stop?ifIdle=1), for the newer host', async () => {
    const box = hostSandbox();
    sandboxes.push(box);
    const { client } = await stdioAgent(box, 'upgrading-agent', { clients });
    const made = await call(client, 'terminal_create', { command: 'bash', args: ['--norc', '--noprofile', '-c', 'echo kept-MARKER-$((4+4))'] });
    const id = String(made.structuredContent!.id);
    await until(() => stored(box, id).includes('kept-MARKER-8'), 'the store wrote the exited session');

    // What a newer client does to an older host that runs nothing (client/ensure-host.ts), from this process, outside every session.
    const { url, pid } = discoveryOf(box);
    const retired = await fetch(new URL(`${STOP_PATH}?ifIdle=1`, url), { method: 'POST' });
    expect(retired.status).toBe(200);
    await until(() => !isAlive(pid) && lockedPid(box.stateDir) === undefined, 'the retired host is gone');
    expect(existsSync(metaPath(sessionStoreDir(box.stateDir), id))).toBe(true);

    expect((await runCli(box, [])).code).toBe(0);
    const ls = await runCli(box, ['ls', '--json']);
    expect(JSON.parse(ls.stdout)).toEqual([expect.objectContaining({ id, restored: true })]);
  });

  it('keeps nothing with PTYDECK_PERSIST=0: the next host knows neither the sessions nor their ids', async () => {
    const box = hostSandbox({ PTYDECK_PERSIST: '0' });
    sandboxes.push(box);
    const first = await stdioAgent(box, 'unkept-agent', { clients });
    const made = await call(first.client, 'terminal_create', { command: 'sleep', args: ['300'] });
    const id = String(made.structuredContent!.id);
    const oldHost = discoveryOf(box).pid;
    process.kill(oldHost, 'SIGKILL');
    await until(() => !isAlive(oldHost), 'the old host is gone');
    expect(await call(first.client, 'terminal_list')).toMatchObject(gone);
    const read = await call(first.client, 'terminal_read', { id });
    expect(read.isError).toBe(true);
    expect(read.content[0]?.text).toMatch(/^No such terminal/);
    expect(existsSync(sessionStoreDir(box.stateDir))).toBe(false);
  });
});
