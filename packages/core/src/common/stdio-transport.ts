// MCP over stdio for `ptydeck mcp`, answering malformed lines with JSON-RPC errors instead of silence.
import type { Readable, Writable } from 'node:stream';
import { serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorResponse, judgeLine } from './jsonrpc-frame.js';

/**
 * MCP over stdio, one JSON-RPC message per line, for `ptydeck mcp` (bridged
 * and embedded). It stands in for the SDK's StdioServerTransport, which
 * reports a line that is not JSON, or not a JSON-RPC message, to onerror and
 * answers nothing, so the agent waits forever. Here such a line gets the
 * JSON-RPC error (-32700 or -32600) on stdout and the next line is read as
 * usual. Only protocol frames are ever written to stdout.
 */
export class StdioJsonRpcTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  /** The current line's bytes so far. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while the rest of an over-long line is thrown away. */
  private skipping = false;
  private started = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxLineBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioJsonRpcTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    // Pause only if nobody else reads stdin, as the SDK's transport does.
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.pendingBytes = 0;
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
      this.append(bytes.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    this.append(bytes.subarray(start));
  };

  private readonly onStdinError = (error: Error): void => this.onerror?.(error);

  private append(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      // Answer now (the agent may wait on it) and drop the line's bytes up to its newline.
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      this.reply(errorResponse(null, ErrorCode.InvalidRequest, `Invalid Request: a line over ${this.maxLineBytes} bytes; send smaller messages`));
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  private endLine(): void {
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    // A blank line carries no message, so there is nothing to answer.
    if (line.trim() === '') return;
    const verdict = judgeLine(line);
    if (verdict.kind === 'error') return this.reply(verdict.error);
    if (verdict.kind === 'drop') return this.onerror?.(new Error(`dropped a malformed notification: ${verdict.reason}`));
    for (const message of verdict.messages) {
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  private reply(message: JSONRPCMessage): void {
    this.send(message).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }
}

/** stdout carries protocol frames only: a stray console.log anywhere in the process would corrupt it. */
export function protocolOnlyStdout(): void {
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
}
