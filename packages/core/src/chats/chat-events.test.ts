import type { ChatEvent } from '@ptydeck/contract';
import { ChatEvent as ChatEventSchema } from '@ptydeck/contract';
import { describe, expect, it } from 'vitest';
import { agentTerminalReports, toChatEvents } from './chat-events.js';

const known = new Map([
  ['term-1', 'session-1'],
  ['own-1', 'session-own'],
]);
const resolve = (id: string) => known.get(id);
/** Maps and checks every event against the contract, as the app will parse it. */
const map = (update: unknown): ChatEvent[] => toChatEvents(update, resolve).map((event) => ChatEventSchema.parse(event));

describe('toChatEvents', () => {
  it('maps message, thought and user chunks, keeping the messageId', () => {
    expect(map({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' }, messageId: 'm1' })).toEqual([
      { type: 'message', role: 'agent', messageId: 'm1', text: 'hi' },
    ]);
    expect(map({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } })).toEqual([{ type: 'message', role: 'thought', text: 'hmm' }]);
    expect(map({ sessionUpdate: 'user_message_chunk', content: { type: 'resource_link', name: 'a.ts', uri: 'file:///a.ts' } })).toEqual([
      { type: 'message', role: 'user', text: '[a.ts](file:///a.ts)' },
    ]);
    expect(map({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'x', mimeType: 'image/png' } })).toEqual([
      { type: 'message', role: 'agent', text: '[image]' },
    ]);
    expect(map({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' } })).toEqual([]);
  });

  it('maps a tool call with text, diff and terminal content, resolving terminals to PTY sessions', () => {
    expect(
      map({
        sessionUpdate: 'tool_call',
        toolCallId: 't1',
        title: 'Edit a.ts',
        kind: 'edit',
        status: 'pending',
        content: [
          { type: 'content', content: { type: 'text', text: 'note' } },
          { type: 'diff', path: '/a.ts', newText: 'new' },
          { type: 'terminal', terminalId: 'term-1' },
          { type: 'terminal', terminalId: 'someone-elses' },
          { type: 'mystery' },
        ],
        locations: [{ path: '/a.ts', line: 3 }, { path: '/b.ts' }, { nope: 1 }],
      }),
    ).toEqual([
      {
        type: 'tool',
        toolCallId: 't1',
        title: 'Edit a.ts',
        kind: 'edit',
        status: 'pending',
        content: [
          { type: 'text', text: 'note' },
          { type: 'diff', path: '/a.ts', oldText: null, newText: 'new' },
          { type: 'terminal', sessionId: 'session-1' },
        ],
        locations: [
          { path: '/a.ts', line: 3 },
          { path: '/b.ts', line: null },
        ],
      },
    ]);
  });

  it('carries only the fields an update sets, drops unknown kinds and statuses, and skips empty updates', () => {
    expect(map({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' })).toEqual([{ type: 'tool', toolCallId: 't1', status: 'completed' }]);
    expect(map({ sessionUpdate: 'tool_call_update', toolCallId: 't1', kind: 'teleport', status: 'exploded' })).toEqual([{ type: 'tool', toolCallId: 't1', kind: 'other' }]);
    expect(map({ sessionUpdate: 'tool_call_update', toolCallId: 't1', _meta: { terminal_output: { terminal_id: 'own-1', data: 'x' } } })).toEqual([]);
    expect(map({ sessionUpdate: 'tool_call_update' })).toEqual([]);
  });

  it('maps a plan, defaulting what it does not understand, and an ACP notice', () => {
    expect(
      map({
        sessionUpdate: 'plan',
        entries: [{ content: 'a', priority: 'high', status: 'completed' }, { content: 'b', priority: 'urgent', status: '?' }, { bad: true }],
      }),
    ).toEqual([
      {
        type: 'plan',
        entries: [
          { content: 'a', priority: 'high', status: 'completed' },
          { content: 'b', priority: 'medium', status: 'pending' },
        ],
      },
    ]);
    expect(map({ sessionUpdate: 'notice', severity: 'error', title: 'Rate limited', description: 'retry later' })).toEqual([
      { type: 'notice', level: 'error', text: 'Rate limited: retry later' },
    ]);
  });

  it('ignores what the chat does not show, and garbage', () => {
    for (const update of [{ sessionUpdate: 'available_commands_update', availableCommands: [] }, { sessionUpdate: 'usage_update' }, null, 'x', [], { sessionUpdate: 'agent_message_chunk' }]) {
      expect(map(update)).toEqual([]);
    }
  });
});

describe('agentTerminalReports', () => {
  it("reads Claude's and Codex's _meta terminal convention", () => {
    expect(
      agentTerminalReports({
        sessionUpdate: 'tool_call',
        toolCallId: 'toolu_1',
        title: '`ls`',
        rawInput: { command: 'ls -la' },
        _meta: { claudeCode: { toolName: 'Bash' }, terminal_info: { terminal_id: 'toolu_1', cwd: '/work' } },
      }),
    ).toEqual([{ kind: 'open', terminalId: 'toolu_1', command: 'ls -la', cwd: '/work', toolCallId: 'toolu_1' }]);
    expect(agentTerminalReports({ sessionUpdate: 'tool_call_update', toolCallId: 'toolu_1', _meta: { terminal_output: { terminal_id: 'toolu_1', data: 'a\n' } } })).toEqual([
      { kind: 'output', terminalId: 'toolu_1', data: 'a\n' },
    ]);
    expect(
      agentTerminalReports({ sessionUpdate: 'tool_call_update', toolCallId: 'toolu_1', status: 'completed', _meta: { terminal_exit: { terminal_id: 'toolu_1', exit_code: 2, signal: null } } }),
    ).toEqual([
      { kind: 'exit', terminalId: 'toolu_1', exitCode: 2, signal: null },
      { kind: 'settled', toolCallId: 'toolu_1' },
    ]);
    expect(agentTerminalReports({ sessionUpdate: 'tool_call_update', toolCallId: 'x', _meta: { terminal_exit: { terminal_id: 'x', exit_code: null, signal: 'SIGTERM' } } })).toEqual([
      { kind: 'exit', terminalId: 'x', exitCode: null, signal: 'SIGTERM' },
    ]);
  });

  it('reports a command named after the terminal opened, and the end of every tool call', () => {
    expect(
      agentTerminalReports({ sessionUpdate: 'tool_call_update', toolCallId: 'toolu_2', rawInput: { command: 'exit 3' }, title: 'exit 3', _meta: { claudeCode: { toolName: 'Bash' } } }),
    ).toEqual([{ kind: 'command', toolCallId: 'toolu_2', command: 'exit 3' }]);
    expect(agentTerminalReports({ sessionUpdate: 'tool_call_update', toolCallId: 'toolu_2', status: 'failed', content: [] })).toEqual([{ kind: 'settled', toolCallId: 'toolu_2' }]);
    expect(agentTerminalReports({ sessionUpdate: 'tool_call_update', toolCallId: 'toolu_2', status: 'in_progress' })).toEqual([]);
  });

  it("reports a settled tool call's rawOutput before its exit, so the terminal can still show it", () => {
    const codexEnd = {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_1',
      status: 'failed',
      rawOutput: { stdout: 'out\n', stderr: '', aggregated_output: 'out\n', exit_code: 3 },
      _meta: { terminal_exit: { terminal_id: 'call_1', exit_code: 3, signal: null } },
    };
    expect(agentTerminalReports(codexEnd)).toEqual([
      { kind: 'final_output', toolCallId: 'call_1', data: 'out\n' },
      { kind: 'exit', terminalId: 'call_1', exitCode: 3, signal: null },
      { kind: 'settled', toolCallId: 'call_1' },
    ]);
    expect(agentTerminalReports({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed', rawOutput: { stdout: 'a', stderr: 'b' } })[0]).toEqual({
      kind: 'final_output',
      toolCallId: 'c',
      data: 'ab',
    });
    expect(agentTerminalReports({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed', rawOutput: { exit_code: 0 } })).toEqual([{ kind: 'settled', toolCallId: 'c' }]);
  });

  it("reads v2's terminal_update and base64 terminal_output_chunk", () => {
    expect(agentTerminalReports({ sessionUpdate: 'terminal_update', terminalId: 't', command: 'make', cwd: '/w' })).toEqual([
      { kind: 'open', terminalId: 't', command: 'make', cwd: '/w' },
    ]);
    expect(agentTerminalReports({ sessionUpdate: 'terminal_update', terminalId: 't', exitStatus: { exitCode: 0 } })).toEqual([
      { kind: 'open', terminalId: 't' },
      { kind: 'exit', terminalId: 't', exitCode: 0, signal: null },
    ]);
    const [chunk] = agentTerminalReports({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: Buffer.from('héllo').toString('base64') });
    expect(chunk).toMatchObject({ kind: 'output', terminalId: 't' });
    expect(Buffer.from((chunk as { data: Uint8Array }).data).toString()).toBe('héllo');
  });

  it('ignores malformed reports', () => {
    for (const update of [
      { sessionUpdate: 'tool_call', _meta: { terminal_info: { terminal_id: '' } } },
      { sessionUpdate: 'tool_call_update', _meta: { terminal_output: { terminal_id: 'x', data: 5 } } },
      { sessionUpdate: 'tool_call_update', _meta: 'nope' },
      { sessionUpdate: 'terminal_output_chunk', terminalId: 't' },
      { sessionUpdate: 'agent_message_chunk', _meta: { terminal_info: { terminal_id: 'x' } } },
      null,
    ]) {
      expect(agentTerminalReports(update)).toEqual([]);
    }
  });
});
