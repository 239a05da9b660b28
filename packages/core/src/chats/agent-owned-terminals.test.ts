import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { readAll } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { AgentOwnedTerminals } from './agent-owned-terminals.js';
import { agentTerminalReports } from './chat-events.js';

/** session/update payloads of a real adapter (see the fixture's _comment). */
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../testing/fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, unknown[]>;
const claude = fixture('claude-agent-acp-0.23.1.json');
const codex = fixture('codex-acp-0.16.0.json');
const replay = (updates: unknown[]) => {
  for (const update of updates) for (const report of agentTerminalReports(update)) terminals.apply(report);
};

let service: PtyService;
let refused: string[];
let terminals: AgentOwnedTerminals;

beforeEach(() => {
  service = createPtyService({ env: isolatedEnv() });
  refused = [];
  terminals = new AgentOwnedTerminals(service, {
    owner: 'chat-owner-1',
    ownerName: 'claude',
    cwd: '/',
    maxRunning: 2,
    onRefused: (id, reason) => refused.push(`${id}: ${reason}`),
  });
});
afterEach(async () => {
  await service.dispose();
});

describe('AgentOwnedTerminals', () => {
  it("shows an agent's command as a read-only session under the chat, with its output and exit", () => {
    terminals.apply({ kind: 'open', terminalId: 'toolu_1', command: 'npm  test\n--watch', cwd: '/tmp' });
    terminals.apply({ kind: 'output', terminalId: 'toolu_1', data: 'ok\n' });
    terminals.apply({ kind: 'exit', terminalId: 'toolu_1', exitCode: 1, signal: null });
    const id = terminals.sessionIdOf('toolu_1')!;
    expect(service.get(id)).toMatchObject({
      readOnly: true,
      owner: 'chat-owner-1',
      ownerName: 'claude',
      title: 'npm test --watch',
      cwd: '/tmp',
      status: 'exited',
      exitCode: 1,
    });
    expect(readAll(service, id).toString()).toBe('ok\r\n');
  });

  it('ends lines with CR LF as a terminal would, however the chunks split them', () => {
    for (const data of ['a\nb\r\n', 'c\r', '\nd\n\n', new TextEncoder().encode('e\n')]) terminals.apply({ kind: 'output', terminalId: 't', data });
    expect(readAll(service, terminals.sessionIdOf('t')!).toString()).toBe('a\r\nb\r\nc\r\nd\r\n\r\ne\r\n');
  });

  it('opens a terminal on its first output when it was never announced, and ignores a cwd that is not a directory', () => {
    terminals.apply({ kind: 'output', terminalId: 'v2-term', data: new TextEncoder().encode('bytes') });
    const id = terminals.sessionIdOf('v2-term')!;
    expect(service.get(id)).toMatchObject({ title: 'claude output', cwd: '/', status: 'running' });
    terminals.apply({ kind: 'open', terminalId: 'odd', cwd: 'relative/dir' });
    expect(service.get(terminals.sessionIdOf('odd')!)).toMatchObject({ cwd: '/' });
  });

  it('refuses a third running terminal once, says why, and shows new ones again when one has exited', () => {
    terminals.apply({ kind: 'open', terminalId: 'a' });
    terminals.apply({ kind: 'open', terminalId: 'b' });
    terminals.apply({ kind: 'open', terminalId: 'c' });
    terminals.apply({ kind: 'output', terminalId: 'c', data: 'lost' });
    expect(terminals.sessionIdOf('c')).toBeUndefined();
    expect(refused).toEqual(['c: the agent already shows 2 running terminals of its own in this chat']);
    terminals.apply({ kind: 'exit', terminalId: 'a', exitCode: 0, signal: null });
    terminals.apply({ kind: 'open', terminalId: 'd' });
    expect(terminals.sessionIdOf('d')).toBeDefined();
  });

  it('ends every terminal still running when the agent is gone', () => {
    terminals.apply({ kind: 'open', terminalId: 'a' });
    terminals.apply({ kind: 'open', terminalId: 'b' });
    terminals.apply({ kind: 'exit', terminalId: 'b', exitCode: 3, signal: null });
    terminals.endAll();
    expect(service.get(terminals.sessionIdOf('a')!)).toMatchObject({ status: 'exited', exitCode: null, signal: null });
    expect(service.get(terminals.sessionIdOf('b')!)).toMatchObject({ status: 'exited', exitCode: 3 });
  });

  it("names the command Claude's adapter announces only after opening its terminal, and shows its output and exit", () => {
    replay(claude.bashExit0!);
    const id = terminals.sessionIdOf('toolu_mx7mekus1')!;
    expect(service.get(id)).toMatchObject({ title: 'echo line1; echo line2', command: 'echo line1; echo line2', status: 'exited', exitCode: 0 });
    expect(readAll(service, id).toString()).toBe('line1\r\nline2');
  });

  it('ends the terminal of a tool call that failed without reporting its exit, showing its rawOutput (Claude, a command exiting non-zero)', () => {
    replay(claude.bashExit3!);
    const id = terminals.sessionIdOf('toolu_mx7mddko2')!;
    expect(service.get(id)).toMatchObject({ title: 'echo hello-from-real-agent; exit 3', status: 'exited', exitCode: null, signal: null });
    expect(readAll(service, id).toString()).toBe('Exit code 3\r\nhello-from-real-agent');
  });

  it("shows the output of a quick Codex command, reported only in the final update's rawOutput, before its exit", () => {
    replay(codex.exit3!);
    const id = terminals.sessionIdOf('call_mx7mpqdv2')!;
    expect(service.get(id)).toMatchObject({ title: 'echo hello-from-real-agent; exit 3', cwd: '/', status: 'exited', exitCode: 3 });
    expect(readAll(service, id).toString()).toBe('hello-from-real-agent\r\n');
  });

  it('keeps a reported exit when the tool call settles in the same update, and ignores tool calls that opened no terminal', () => {
    terminals.apply({ kind: 'open', terminalId: 'term-1', toolCallId: 'call-1', command: 'make' });
    terminals.apply({ kind: 'exit', terminalId: 'term-1', exitCode: 2, signal: null });
    terminals.apply({ kind: 'settled', toolCallId: 'call-1' });
    terminals.apply({ kind: 'command', toolCallId: 'call-2', command: 'ls' });
    terminals.apply({ kind: 'settled', toolCallId: 'call-2' });
    expect(service.get(terminals.sessionIdOf('term-1')!)).toMatchObject({ title: 'make', exitCode: 2 });
    expect(service.list()).toHaveLength(1);
  });
});
