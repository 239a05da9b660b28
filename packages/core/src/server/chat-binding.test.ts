import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { ChatBindings } from '../chats/chat-bindings.js';
import { CHAT_BINDING_HEADER } from '../common/bridge-header.js';
import { useAgentCore } from '../testing/agent-core.js';

const bindings = new ChatBindings();
const served = useAgentCore({ chatBindings: bindings });

async function connect(binding: string | undefined, name = 'adapter') {
  const client = new Client({ name, version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', served.core.url), {
    requestInit: { headers: { Authorization: `Bearer ${served.core.agentToken}`, ...(binding ? { [CHAT_BINDING_HEADER]: binding } : {}) } },
  });
  await client.connect(transport);
  return { client, transport };
}

/** A binding whose chat agent is this test process, as if it were the agent's own MCP server. */
function issueForThisProcess(binding: Parameters<ChatBindings['issue']>[0]): string {
  const secret = bindings.issue(binding);
  bindings.attachProcess(secret, process.pid);
  return secret;
}

const structured = (result: unknown) => (result as { structuredContent: Record<string, unknown> }).structuredContent;

describe('an MCP connection bound to a chat', () => {
  it("speaks for the chat: its sessions get the chat's owner, the agent's name and the chat's cwd, and the agent stays listed until its last connection leaves", async () => {
    const secret = issueForThisProcess({ owner: 'chat-owner-test', agentName: 'claude', cwd: tmpdir() });
    const first = await connect(secret, 'some-adapter-name');
    const made = structured(await first.client.callTool({ name: 'terminal_create', arguments: { command: 'sleep', args: ['30'] } }));
    expect(served.service.get(String(made.id))).toMatchObject({ source: 'agent', owner: 'chat-owner-test', ownerName: 'claude', cwd: tmpdir() });
    // A cwd the call names still wins.
    const named = structured(await first.client.callTool({ name: 'terminal_create', arguments: { command: 'sleep', args: ['30'], cwd: '/' } }));
    expect(served.service.get(String(named.id))?.cwd).toBe('/');
    expect(served.core.agents.list()).toContainEqual(expect.objectContaining({ id: 'chat-owner-test', name: 'claude' }));

    // A second connection of the same chat sees the chat's sessions; an unbound one does not.
    const second = await connect(secret);
    expect(JSON.stringify(structured(await second.client.callTool({ name: 'terminal_list', arguments: {} })))).toContain(String(made.id));
    const stranger = await connect(undefined, 'stranger');
    expect(JSON.stringify(structured(await stranger.client.callTool({ name: 'terminal_list', arguments: {} })))).not.toContain(String(made.id));

    await first.transport.terminateSession();
    await first.client.close();
    expect(served.core.agents.list().some((agent) => agent.id === 'chat-owner-test')).toBe(true);
    await second.transport.terminateSession();
    await second.client.close();
    expect(served.core.agents.list().some((agent) => agent.id === 'chat-owner-test')).toBe(false);
    await stranger.transport.terminateSession();
    await stranger.client.close();
  });

  it('is cut off once its binding is revoked, and a session cannot switch chats midway', async () => {
    const secret = issueForThisProcess({ owner: 'chat-owner-revoked', agentName: 'codex', cwd: '/' });
    const other = issueForThisProcess({ owner: 'chat-owner-other', agentName: 'codex', cwd: '/' });
    const { client, transport } = await connect(secret);
    await client.listTools();
    bindings.revoke(secret);
    await expect(client.listTools()).rejects.toThrow(/chat binding is not valid/);
    await client.close();

    const unbound = await connect(undefined);
    const sessionId = unbound.transport.sessionId!;
    const switched = await fetch(new URL('/mcp', served.core.url), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${served.core.agentToken}`,
        [CHAT_BINDING_HEADER]: other,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(switched.status).toBe(403);
    await unbound.transport.terminateSession();
    await unbound.client.close();
  });

  it("is honoured only from the chat's agent and its descendants, and not before the agent exists", async () => {
    const early = bindings.issue({ owner: 'chat-owner-early', agentName: 'claude', cwd: '/' });
    await expect(connect(early)).rejects.toThrow(/only valid from the processes of the chat's own agent/);
    // Another process is the agent: this one, not started by it, is refused.
    const agent = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      bindings.attachProcess(early, agent.pid!);
      await expect(connect(early)).rejects.toThrow(/only valid from the processes of the chat's own agent/);
      expect(served.core.agents.list().some((entry) => entry.id === 'chat-owner-early')).toBe(false);
    } finally {
      agent.kill();
    }
  });
});
