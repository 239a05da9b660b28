import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { until } from '../testing/poll-until.js';
import { buildCore, discoveryOf, hostSandbox, isAlive, reapAfterEach, runCli, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';

/**
 * What a host leaves in its temporary directory (the agents' rcfile, the developer tabs' init file, the
 * sandboxes' empty file): nothing once it stops, and nothing of a killed host's once the next host runs.
 * Each sandbox has a TMPDIR of its own here, so what is in it is its hosts'.
 */
beforeAll(buildCore, 120_000);

const { track, clients } = reapAfterEach();

function withTmp(box: HostSandbox): string {
  const tmp = join(box.home, 'tmp');
  mkdirSync(tmp, { mode: 0o700 });
  box.env.TMPDIR = tmp;
  return tmp;
}

async function createTerminal(client: Client): Promise<void> {
  const made = (await client.callTool({ name: 'terminal_create', arguments: {} })) as { isError?: boolean; content: unknown };
  expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
}

describe("a host's temporary files", () => {
  it('are gone when the host stops', async () => {
    const box = track(hostSandbox());
    const tmp = withTmp(box);
    const { client } = await stdioAgent(box, 'temp-files', { clients });
    await createTerminal(client);
    const pid = discoveryOf(box).pid;
    expect(readdirSync(tmp)).toContainEqual(expect.stringMatching(/^ptydeck-shell-/));

    const stop = await runCli(box, ['stop', '--force']);
    expect(stop.code, stop.stderr).toBe(0);
    await until(() => !isAlive(pid), 'the stopped host is gone');
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("of a killed host are removed by the next host", async () => {
    const box = track(hostSandbox());
    const tmp = withTmp(box);
    const first = await stdioAgent(box, 'killed', { clients });
    await createTerminal(first.client);
    const killed = discoveryOf(box).pid;
    const left = readdirSync(tmp);
    expect(left).toContainEqual(expect.stringMatching(/^ptydeck-shell-/));
    process.kill(killed, 'SIGKILL');
    await until(() => !isAlive(killed), 'the killed host is gone');
    expect(readdirSync(tmp)).toEqual(left);

    const started = await runCli(box, []);
    expect(started.code, started.stderr).toBe(0);
    await until(() => readdirSync(tmp).every((name) => !left.includes(name)), `the next host removed ${left.join(', ')}`);
    const stop = await runCli(box, ['stop', '--force']);
    expect(stop.code, stop.stderr).toBe(0);
    await until(() => readdirSync(tmp).length === 0, 'the next host removed its own as it stopped');
  });
});
