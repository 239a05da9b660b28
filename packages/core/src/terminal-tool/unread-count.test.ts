import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCore, hostSandbox, reapAfterEach, stdioAgent } from '../testing/host-sandbox.js';

/**
 * A new user's report: terminal_list counted unread bytes (a fresh shell's
 * prompt and shell-integration marks, the prompt after a run) that
 * terminal_read mode "new" never returns, so a model told `unread_bytes: 148`
 * read and got "" every time. The count is what a read returns.
 */
beforeAll(buildCore, 120_000);
const { track, clients } = reapAfterEach();

type Structured = Record<string, unknown>;
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ structured: Structured; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as { structuredContent?: Structured; content?: Array<{ type: string; text?: string }>; isError?: boolean };
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return { structured: result.structuredContent!, text: (result.content ?? []).map((c) => c.text ?? '').join('\n') };
}

/** The caller's unread count for `id`, as structuredContent and the text block say it; they must agree. */
async function unreadOf(client: Client, id: string): Promise<number> {
  const { structured, text } = await call(client, 'terminal_list', {});
  const entry = (structured.terminals as Array<{ id: string; unread_bytes: number }>).find((t) => t.id === id)!;
  const line = text.split('\n').find((l) => l.startsWith(id))!;
  expect(line).toContain(`unread ${entry.unread_bytes} B`);
  return entry.unread_bytes;
}

/** Reads mode "new" and checks the count before it was what the read returned, and is 0 after. */
async function expectCountMatchesRead(client: Client, id: string): Promise<string> {
  const before = await unreadOf(client, id);
  const { structured } = await call(client, 'terminal_read', { id, mode: 'new' });
  const output = structured.output as string;
  expect({ before, output }).toEqual({ before: Buffer.byteLength(output, 'utf8'), output });
  expect(await unreadOf(client, id)).toBe(0);
  return output;
}

describe('terminal_list unread_bytes', () => {
  it('counts what terminal_read mode "new" returns in a shell: fresh, after run, send, background output and exit', async () => {
    const box = track(hostSandbox());
    const { client } = await stdioAgent(box, 'unread-test-agent', { clients });
    const dir = mkdtempSync(join(box.home, 'work-'));
    const id = (await call(client, 'terminal_create', { cwd: dir })).structured.id as string;
    // Its prompt and shell-integration marks, as they arrive: nothing a read returns.
    expect(await expectCountMatchesRead(client, id)).toBe('');
    await call(client, 'terminal_run', { id, command: 'true' });
    expect(await expectCountMatchesRead(client, id)).toBe('');

    // The run's result returned its output; the prompt after it is not unread.
    await call(client, 'terminal_run', { id, command: 'echo hello' });
    expect(await expectCountMatchesRead(client, id)).toBe('');

    await call(client, 'terminal_send', { id, text: 'echo sent', keys: ['Enter'], wait_ms: 0 });
    await call(client, 'terminal_wait', { id, until: 'exit' });
    await expectCountMatchesRead(client, id);

    // A background job prints while the shell idles at its prompt: that line is unread, and only it.
    await call(client, 'terminal_run', { id, command: '(while [ ! -e go ]; do sleep 0.02; done; echo background-line) &' });
    await expectCountMatchesRead(client, id);
    writeFileSync(join(dir, 'go'), '');
    await expect.poll(() => unreadOf(client, id), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await expectCountMatchesRead(client, id)).toContain('background-line');

    await call(client, 'terminal_send', { id, text: 'echo last; exit 3', keys: ['Enter'], wait_ms: 0 });
    await call(client, 'terminal_wait', { id, until: 'exit' });
    await expectCountMatchesRead(client, id);
  });

  it('counts text, not escape sequences, for a program that is not a shell, to its exit', async () => {
    const box = track(hostSandbox());
    const { client } = await stdioAgent(box, 'unread-test-agent', { clients });
    const id = (await call(client, 'terminal_create', { command: 'env', args: ['sh', '-c', 'printf "\\033[1;31mred\\033[0m\\n"; exec cat'] })).structured.id as string;
    await expect.poll(() => unreadOf(client, id), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await expectCountMatchesRead(client, id)).toBe('red\n');

    // terminal_send returns what its input brought: nothing is left unread.
    await call(client, 'terminal_send', { id, text: 'typed', keys: ['Enter'] });
    expect(await expectCountMatchesRead(client, id)).toBe('');

    await call(client, 'terminal_send', { id, text: 'last', keys: ['Enter', 'C-d'], wait_ms: 0 });
    await call(client, 'terminal_wait', { id, until: 'exit' });
    await expectCountMatchesRead(client, id);
  });
});
