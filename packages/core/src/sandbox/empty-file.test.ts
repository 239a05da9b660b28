import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { until } from '../testing/poll-until.js';
import { buildCore, discoveryOf, hostSandbox, isAlive, reapAfterEach, runCli, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';
import { readStat } from '../proc/proc-fs.js';
import { sandboxAvailability } from './availability.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * The empty file a host's sandboxes lay over hidden files, with real hosts and
 * real bubblewrap: it is made in the host's temporary directory when a
 * sandboxed shell first hides a file, and removed when the host stops, or,
 * for a killed host, when the next one starts; and so is the directory of the
 * rcfile its agents' shells start with: a host leaves nothing in its temporary
 * directory. Each test gives its hosts a TMPDIR of their own, so only its own
 * hosts' files are looked at.
 */
beforeAll(buildCore, 120_000);

const { track, clients } = reapAfterEach();
const tmps: string[] = [];
afterAll(() => {
  for (const dir of tmps) rmSync(dir, { recursive: true, force: true });
});

/** A host sandbox whose hosts use a temporary directory of their own, with a file in HOME that sandboxes hide. */
function box(): HostSandbox & { tmp: string } {
  const tmp = fileTempDir('ptydeck-empty-file-');
  tmps.push(tmp);
  const sandbox = track({ ...hostSandbox({ TMPDIR: tmp }), tmp });
  writeFileSync(join(sandbox.home, '.netrc'), 'machine example.com password hunter2\n');
  return sandbox;
}

/** Opens a sandboxed shell (the default profile) and reads the hidden file in it: the host lays its empty file over it. */
async function sandboxedShell(client: Client): Promise<void> {
  const result = (await client.callTool({ name: 'terminal_run', arguments: { command: 'cat ~/.netrc; echo read-$?' } })) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, any> };
  const text = result.content.map((c) => c.text).join('');
  expect(result.isError, text).toBeFalsy();
  expect(text).toContain('read-0');
  expect(text).not.toContain('hunter2');
}

const emptyFileDirs = (tmp: string) => readdirSync(tmp).filter((name) => name.startsWith('ptydeck-sandbox-'));

describe.skipIf(!sandboxAvailability('workspace').ok)("a host's empty file for hidden files, and its agents' rcfile", () => {
  it('is removed when the host stops', async () => {
    const sandbox = box();
    const { client } = await stdioAgent(sandbox, 'agent', { clients });
    await sandboxedShell(client);
    const host = discoveryOf(sandbox).pid;
    expect(emptyFileDirs(sandbox.tmp)).toEqual([expect.stringMatching(new RegExp(`^ptydeck-sandbox-${host}-\\d+-`))]);
    expect(readdirSync(sandbox.tmp)).toContainEqual(expect.stringMatching(new RegExp(`^ptydeck-shell-${host}-\\d+-`)));

    const stop = await runCli(sandbox, ['stop', '--force']);
    expect(stop.code, stop.stderr).toBe(0);
    await until(() => !isAlive(host), 'the host is gone');
    expect(readdirSync(sandbox.tmp)).toEqual([]);
  }, 60_000);

  it("of a killed host is removed by the next host, with its rcfile's, which leaves a live host's and anything else alone", async () => {
    const sandbox = box();
    const { client } = await stdioAgent(sandbox, 'agent', { clients });
    await sandboxedShell(client);
    const killed = discoveryOf(sandbox).pid;
    const [left] = emptyFileDirs(sandbox.tmp);
    expect(left).toMatch(new RegExp(`^ptydeck-sandbox-${killed}-`));
    const rcfileDir = readdirSync(sandbox.tmp).find((name) => name.startsWith(`ptydeck-shell-${killed}-`));
    expect(rcfileDir).toBeDefined();
    // A live process's (this test runner's, as a host would name it) and another name: not the next host's to remove.
    const live = `ptydeck-sandbox-${process.pid}-${readStat(process.pid)!.startTicks}-abcdef`;
    mkdirSync(join(sandbox.tmp, live));
    writeFileSync(join(sandbox.tmp, live, 'empty'), '');
    writeFileSync(join(sandbox.tmp, 'ptydeck-sandbox-not-a-host'), '');
    process.kill(killed, 'SIGKILL');
    await until(() => !isAlive(killed), 'the host is gone');
    expect(emptyFileDirs(sandbox.tmp)).toContain(left);

    const started = await runCli(sandbox, []);
    expect(started.code, started.stderr).toBe(0);
    expect(discoveryOf(sandbox).pid).not.toBe(killed);
    // The next host looks once it serves, without holding up the client that started it.
    await until(() => !readdirSync(sandbox.tmp).some((name) => name === left || name === rcfileDir), "the killed host's empty file and rcfile are removed");
    expect(emptyFileDirs(sandbox.tmp).sort()).toEqual([live, 'ptydeck-sandbox-not-a-host'].sort());
  }, 60_000);
});

