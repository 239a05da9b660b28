import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../testing/mcp-client.js';
import { createTerminalTool, type TerminalTool } from '../terminal-tool/terminal-tool.js';
import { openSessionStore, type SessionStore } from '../persist/session-store.js';
import { createPtyService } from '../pty/pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { restoreAndRecord } from './session-persistence.js';

/**
 * A host's start and death around a real session store: what one host's agent
 * had and had not read comes back on the next, through the files, and a
 * closed terminal's files go.
 */
const OWNER = 'agent-kept';
const hosts: Array<{ service: PtyService; tool: TerminalTool; store: SessionStore; stop: () => void }> = [];
afterAll(async () => {
  for (const { service, tool, store, stop } of hosts) {
    stop();
    store.dispose();
    tool.dispose();
    await service.dispose();
  }
});

async function startHost(dir: string) {
  const service = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
  const tool = createTerminalTool(service);
  const store = openSessionStore({ dir });
  const host = { service, tool, store, stop: await restoreAndRecord(store, service, tool) };
  hosts.push(host);
  return host;
}

describe('restoreAndRecord', () => {
  it("carries an agent's terminal and its read position through the store to the next host, and drops its files once closed", async () => {
    const dir = join(fileTempDir('ptydeck-persist-'), 'sessions');
    const before = await startHost(dir);
    const agent = await connectMcp(before.tool, OWNER);
    const id = String((await agent.ok('terminal_create', {})).id);
    expect((await agent.ok('terminal_run', { id, command: 'echo seen-$((1+1))' })).output).toContain('seen-2');
    before.service.write(id, 'echo unseen-$((2+2))\r');
    await waitForOutput(before.service, id, 'unseen-4');
    await before.store.flush();
    // The host dies here: nothing after this is recorded.
    before.stop();
    await agent.close();

    const after = await startHost(dir);
    expect(after.service.get(id)).toMatchObject({ status: 'lost', owner: OWNER, pid: 0 });
    const again = await connectMcp(after.tool, OWNER);
    const read = await again.ok('terminal_read', { id });
    expect(read).toMatchObject({ state: 'lost' });
    expect(read.output).toContain('unseen-4');
    expect(read.output).not.toContain('seen-2');

    await again.ok('terminal_close', { id });
    await after.store.flush();
    expect(readdirSync(dir).filter((name) => name.includes(id))).toEqual([]);
    expect(existsSync(dir)).toBe(true);
    await again.close();
  });

  it("keeps the read position of a restored terminal through a graceful stop, which lets the tool go before the store's last write, to a third host", async () => {
    const dir = join(fileTempDir('ptydeck-persist-'), 'sessions');
    const first = await startHost(dir);
    const agent = await connectMcp(first.tool, OWNER);
    const id = String((await agent.ok('terminal_create', {})).id);
    expect((await agent.ok('terminal_run', { id, command: 'echo first-$((1+1))' })).output).toContain('first-2');
    first.service.write(id, 'echo second-$((2+2))\r');
    await waitForOutput(first.service, id, 'second-4');
    await first.store.flush();
    // Killed: nothing after this is recorded.
    first.stop();
    await agent.close();

    const second = await startHost(dir);
    const again = await connectMcp(second.tool, OWNER);
    expect((await again.ok('terminal_read', { id })).output).toContain('second-4');
    expect(await again.ok('terminal_list')).toMatchObject({ terminals: [expect.objectContaining({ id, unread_bytes: 0 })] });
    await again.close();
    // Stopped as LocalServer.close stops: the tool first, the sessions, then the store's last write.
    second.tool.dispose();
    await second.service.dispose();
    await second.store.flush();
    second.stop();

    const third = await startHost(dir);
    const last = await connectMcp(third.tool, OWNER);
    expect(await last.ok('terminal_list')).toMatchObject({ terminals: [expect.objectContaining({ id, unread_bytes: 0 })] });
    expect((await last.ok('terminal_read', { id })).output).toBe('');
    await last.close();
  });
});
