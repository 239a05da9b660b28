import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { until } from '../testing/poll-until.js';
import { bin, buildCore, discoveryOf, hostSandbox, isAlive, lockedPid, processesOf, runCli, reapAfterEach, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';

/**
 * Issue 32 item 7, with real processes: `ptydeck stop --force` stops ptydeck
 * even while an agent's `ptydeck mcp` is connected. The bridge answers each
 * tool call with an error result saying ptydeck was stopped, starts no host,
 * and joins the one the developer starts. A SIGTERM or SIGINT to the host
 * (kill, systemd, a logout) is a stop too, not a crash.
 */
beforeAll(buildCore, 120_000);

const { track, clients } = reapAfterEach();

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, any> };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as ToolResult;
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

const stoppedResult = {
  isError: true,
  content: [{ type: 'text', text: expect.stringMatching(/^ptydeck was stopped \(`ptydeck stop`, or SIGTERM or SIGINT to its host\); run `ptydeck` to start it again\. .*starts no host by itself/) }],
};

describe('a `ptydeck mcp` whose host `ptydeck stop` stopped', () => {
  it('answers every call that ptydeck was stopped, starts no host, and joins the one the developer starts', async () => {
    const box = hostSandbox();
    track(box);
    const { client, stderr } = await stdioAgent(box, 'stopped-agent', { clients });
    const shell = await call(client, 'terminal_create', {});
    expect(shell.isError, JSON.stringify(shell.content)).toBeFalsy();
    const id = String(shell.structuredContent!.id);
    const stoppedHost = discoveryOf(box).pid;
    // A call in flight when the developer stops ptydeck.
    const waiting = call(client, 'terminal_run', { id, command: 'sleep 120', timeout_ms: 100_000 });
    await until(() => processesOf(box.stateDir).some((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1') === 'sleep\x00120\x00'), 'the command runs');

    const stop = await runCli(box, ['stop', '--force']);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`Stopped the ptydeck host (pid ${stoppedHost}); ended 1 running session. 1 agent was connected;`);
    expect(await waiting).toEqual(stoppedResult);
    await until(() => !isAlive(stoppedHost), 'the stopped host is gone');

    // Every call is told, and none starts a host.
    for (let n = 0; n < 3; n++) expect(await call(client, 'terminal_list')).toEqual(stoppedResult);
    expect(hostsOf(box)).toEqual([]);
    expect(existsSync(join(box.stateDir, 'server.json'))).toBe(false);
    expect(lockedPid(box.stateDir)).toBeUndefined();

    // The developer starts ptydeck: the next call joins it, which has no terminal: the developer's stop ended it for good.
    const started = await runCli(box, []);
    expect(started.code, started.stderr).toBe(0);
    const host = discoveryOf(box);
    const listed = await call(client, 'terminal_list');
    expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
    expect(listed.structuredContent!.terminals).toEqual([]);
    expect((await call(client, 'terminal_read', { id })).content[0]?.text).toMatch(/^No such terminal/);
    expect(stderr()).toContain(`joined the ptydeck host at ${host.url} (pid ${host.pid}) with a new session`);
    expect(hostsOf(box)).toEqual([host.pid]);
  });
});

describe('a `ptydeck mcp` whose host was sent SIGTERM or SIGINT', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`hears it was stopped (${signal}), starts no host, and joins the one the developer starts`, async () => {
      const box = hostSandbox();
      track(box);
      const { client, stderr } = await stdioAgent(box, `${signal}-agent`, { clients });
      const shell = await call(client, 'terminal_create', {});
      expect(shell.isError, JSON.stringify(shell.content)).toBeFalsy();
      const id = String(shell.structuredContent!.id);
      // Its record is on disk, as it would be for a kill.
      await until(() => existsSync(join(box.stateDir, 'sessions', `${id}.json`)), 'the store wrote the terminal');
      const stoppedHost = discoveryOf(box).pid;

      process.kill(stoppedHost, signal);
      await until(() => !isAlive(stoppedHost), 'the signalled host is gone');
      for (let n = 0; n < 3; n++) expect(await call(client, 'terminal_list')).toEqual(stoppedResult);
      expect(hostsOf(box)).toEqual([]);
      expect(existsSync(join(box.stateDir, 'server.json'))).toBe(false);

      const started = await runCli(box, []);
      expect(started.code, started.stderr).toBe(0);
      const host = discoveryOf(box);
      // Unlike `ptydeck stop`, a signal (systemd, a logout) leaves the terminal to the next host, ended.
      const listed = await call(client, 'terminal_list');
      expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
      expect(listed.structuredContent!.terminals).toEqual([expect.objectContaining({ id })]);
      expect(stderr()).toContain(`joined the ptydeck host at ${host.url} (pid ${host.pid}) with a new session`);
    });
  }
});
