import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { ChatBindings } from '../chats/chat-bindings.js';
import { agentOwnerId, newAgentKey } from './agent-identity.js';
import { AGENT_KEY_HEADER, CHAT_BINDING_HEADER } from './bridge-header.js';
import { useAgentCore } from '../testing/agent-core.js';

const bindings = new ChatBindings();
const served = useAgentCore({ chatBindings: bindings });

async function connect(headers: Record<string, string> = {}) {
  const client = new Client({ name: 'identity-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', served.core.url), {
    requestInit: { headers: { Authorization: `Bearer ${served.core.agentToken}`, ...headers } },
  });
  await client.connect(transport);
  return {
    client,
    call: async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> },
    end: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

describe("an agent's key", () => {
  it('names the same owner on every connection that presents it, and no other: what one opened, the next one sees, and nobody else', async () => {
    const key = newAgentKey();
    const first = await connect({ [AGENT_KEY_HEADER]: key });
    const made = (await first.call('terminal_create', { command: 'sleep', args: ['30'] })).structuredContent!;
    const info = served.service.get(String(made.id))!;
    expect(info.owner).toBe(agentOwnerId(key));
    // The owner id, which panels and `ptydeck ls` show, does not give the key away.
    expect(info.owner).not.toContain(key);
    await first.end();

    // A new connection with the key (as `ptydeck mcp` opens on a new host): the same owner, its sessions its own.
    const again = await connect({ [AGENT_KEY_HEADER]: key });
    const listed = (await again.call('terminal_list')).structuredContent as { terminals: Array<{ id: string }> };
    expect(listed.terminals.map((terminal) => terminal.id)).toContain(made.id);

    for (const stranger of [await connect(), await connect({ [AGENT_KEY_HEADER]: newAgentKey() })]) {
      const theirs = (await stranger.call('terminal_list')).structuredContent as { terminals: Array<{ id: string }> };
      expect(theirs.terminals.map((terminal) => terminal.id)).not.toContain(made.id);
      const read = await stranger.call('terminal_read', { id: made.id });
      expect(read.isError).toBe(true);
      expect(read.content[0]?.text).toMatch(/No such terminal/);
      await stranger.end();
    }
    await again.call('terminal_close', { id: made.id, force: true });
    await again.end();
  });

  it('without a key, each connection is an owner of its own', async () => {
    const one = await connect();
    const made = (await one.call('terminal_create', { command: 'sleep', args: ['30'] })).structuredContent!;
    await one.end();
    const two = await connect();
    const listed = (await two.call('terminal_list')).structuredContent as { terminals: Array<{ id: string }> };
    expect(listed.terminals.map((terminal) => terminal.id)).not.toContain(made.id);
    await two.end();
    await served.service.remove(String(made.id));
  });

  it('is refused when too short to be a secret, and gives way to a chat binding', async () => {
    await expect(connect({ [AGENT_KEY_HEADER]: 'guessable' })).rejects.toThrow(/must be 43 to 128 base64url characters/);
    const secret = bindings.issue({ owner: 'chat-owner-key', agentName: 'claude', cwd: '/' });
    bindings.attachProcess(secret, process.pid);
    const bound = await connect({ [AGENT_KEY_HEADER]: newAgentKey(), [CHAT_BINDING_HEADER]: secret });
    const made = (await bound.call('terminal_create', { command: 'sleep', args: ['30'] })).structuredContent!;
    expect(served.service.get(String(made.id))?.owner).toBe('chat-owner-key');
    await bound.call('terminal_close', { id: made.id, force: true });
    await bound.end();
  });
});
