import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioJsonRpcTransport } from './stdio-transport.js';

/** A transport over in-memory pipes: what it hands on, and every stdout line it wrote. */
async function pipes(maxLineBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioJsonRpcTransport(stdin, stdout, maxLineBytes);
  const received: JSONRPCMessage[] = [];
  const written: unknown[] = [];
  let partial = '';
  let wake: (() => void) | undefined;
  transport.onmessage = (message) => {
    received.push(message);
    wake?.();
  };
  stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop()!;
    written.push(...parts.map((line) => JSON.parse(line)));
    wake?.();
  });
  await transport.start();
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise<void>((resolve) => (wake = resolve));
  };
  return { stdin, transport, received, written, until };
}

const list = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' });

describe('StdioJsonRpcTransport', () => {
  it('reads messages split across chunks, several to a chunk, with CRLF, and skips blank lines', async () => {
    const { stdin, received, written, until } = await pipes();
    const two = `${list(1)}\r\n\n${list(2)}\n${list(3)}`;
    stdin.write(two.slice(0, 7));
    stdin.write(two.slice(7));
    stdin.write('\n');
    await until(() => received.length === 3);
    expect(received.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
    expect(written).toEqual([]);
  });

  it('answers a line over the limit with -32600 once, drops the rest of it, and reads the next line', async () => {
    const { stdin, received, written, until } = await pipes(64);
    stdin.write(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"${'y'.repeat(40)}`);
    stdin.write(`${'z'.repeat(100)}"}}\n`);
    stdin.write(`${list(2)}\n`);
    await until(() => received.length === 1);
    expect(written).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('over 64 bytes') } }]);
    expect((received[0] as { id: number }).id).toBe(2);
  });
});
