import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { until } from '../testing/poll-until.js';
import { bin, buildCore, discoveryOf, hostSandbox, processesOf, reap, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';
import { TmuxServer } from '../testing/tmux.js';

/**
 * Issue 32.9: a real host, killed while `ptydeck attach` shows one of its
 * sessions: attach says the host is gone and what to do, not a WebSocket
 * close code.
 */
beforeAll(buildCore, 120_000);

let box: HostSandbox;
let tmux: TmuxServer;
const clients: Client[] = [];

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  tmux?.kill();
  if (box) {
    reap(box);
    await until(() => processesOf(box.stateDir).length === 0, `no process of ${box.stateDir} is left`);
  }
});

describe('ptydeck attach when its host dies', () => {
  it('says the host is gone, with its pid and how to start a new one, and exits 1', async () => {
    box = hostSandbox();
    tmux = new TmuxServer({ ...box.env, TERM: 'xterm-256color' });
    const { client } = await stdioAgent(box, 'gone-test-agent', { clients });
    const created = (await client.callTool({ name: 'terminal_create', arguments: {} })) as { structuredContent?: { id?: string } };
    const id = created.structuredContent!.id!;
    const hostPid = discoveryOf(box).pid;

    const pane = tmux.pane(`'${process.execPath}' '${bin}' attach ${id}`);
    await pane.waitFor('read-only');
    process.kill(hostPid, 'SIGKILL');
    expect(await pane.exitStatus()).toBe(1);
    const screen = pane.screen().replace(/\n/g, '');
    expect(screen).toContain(`the ptydeck host (pid ${hostPid}) is gone`);
    expect(screen).toContain('Run `ptydeck` to start a new host');
    expect(screen).not.toMatch(/closed \(1006\)/);
  });
});
