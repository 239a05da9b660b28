import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_PATH } from '@ptydeck/contract';
import { BRIDGE_HEADER, CHAT_BINDING_HEADER } from '../server/bridge-header.js';
import { bounded } from './signals.js';
import { StdioJsonRpcTransport } from './stdio-transport.js';

export interface BridgeOptions {
  /** Base URL of the running ptydeck, e.g. http://127.0.0.1:PORT. */
  url: string;
  token: string;
  /** A chat's binding, sent with every request so the server files this connection under the chat. */
  chatBinding?: string;
  stdin?: Readable;
  stdout?: Writable;
  log: (line: string) => void;
}

export interface StdioBridge {
  /** Settles when either side closes (stdin EOF, the agent or the server went away). */
  done: Promise<void>;
  /** Ends the MCP session in the running ptydeck (its sessions stay there) and closes both sides. */
  close(): Promise<void>;
}

/**
 * Forwards MCP frames between an agent on stdio and a running ptydeck's /mcp,
 * so the agent's sessions live in (and show up in) that ptydeck. Frames pass
 * through untouched; the bridge only learns the negotiated protocol version
 * for the HTTP headers, and answers a request itself when ptydeck is gone or
 * when a line is not a JSON-RPC message (ptydeck never sees that line).
 */
export async function startStdioBridge(options: BridgeOptions): Promise<StdioBridge> {
  const stdin = options.stdin ?? process.stdin;
  const stdio = new StdioJsonRpcTransport(stdin, options.stdout ?? process.stdout);
  const http = new StreamableHTTPClientTransport(new URL(MCP_PATH, options.url), {
    requestInit: {
      headers: {
        Authorization: `Bearer ${options.token}`,
        [BRIDGE_HEADER]: 'stdio',
        ...(options.chatBinding ? { [CHAT_BINDING_HEADER]: options.chatBinding } : {}),
      },
    },
  });
  let initializeId: RequestId | undefined;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));

  stdio.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeId = message.id;
    http.send(message).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      options.log(`ptydeck mcp: forwarding to ${options.url} failed: ${reason}`);
      if (isJSONRPCRequest(message)) {
        void stdio.send({
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: -32000,
            message: `ptydeck at ${options.url} did not accept the request (${reason}). If ptydeck restarted, this session is gone: restart the MCP connection.`,
          },
        });
      }
    });
  };
  http.onmessage = (message: JSONRPCMessage) => {
    if (initializeId !== undefined && isJSONRPCResultResponse(message) && message.id === initializeId) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
      initializeId = undefined;
    }
    void stdio.send(message);
  };
  http.onerror = (error) => options.log(`ptydeck mcp: ${error.message}`);
  stdio.onerror = (error) => options.log(`ptydeck mcp: stdio: ${error.message}`);
  http.onclose = () => finish();
  stdio.onclose = () => finish();
  // The stdio transport does not watch for EOF; an agent that closes our stdin is done with us.
  stdin.once('end', () => finish());
  stdin.once('close', () => finish());

  await http.start();
  await stdio.start();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      finish();
      await bounded(http.terminateSession(), 2000);
      await http.close().catch(() => {});
      await stdio.close().catch(() => {});
    })());
  return { done, close };
}
