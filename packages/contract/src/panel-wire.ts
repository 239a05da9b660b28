// Both ends of a panel client's wire, for every client of the panel socket (the app, `ptydeck ls` and `attach`):
// what the server sends, checked against the contract, and what the client sends, checked before it leaves.
import { decodeOutputFrame, type OutputFrame } from './output-frame.js';
import { PanelClientMessage, PanelServerMessage } from './panel-protocol.js';
import { parseJsonAs } from './zod-issues.js';

export type IncomingPanelMessage =
  | { kind: 'control'; message: PanelServerMessage }
  | { kind: 'output'; frame: OutputFrame }
  | { kind: 'invalid'; reason: string };

/**
 * Turns one WebSocket message into a validated value. Text frames are JSON
 * control messages checked against the contract; binary frames are output.
 * Nothing the server sends is trusted unchecked, and nothing malformed throws:
 * it comes back as `invalid` with a reason the caller can report.
 */
export function parseServerMessage(data: unknown): IncomingPanelMessage {
  // A text frame reaches a browser as a string; Node's ws hands over its bytes, which the caller decodes.
  if (typeof data === 'string') return parseControl(data);
  if (data instanceof ArrayBuffer) return parseOutput(new Uint8Array(data));
  if (ArrayBuffer.isView(data)) return parseOutput(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return { kind: 'invalid', reason: `unexpected message type ${Object.prototype.toString.call(data)}` };
}

function parseControl(text: string): IncomingPanelMessage {
  const checked = parseJsonAs(PanelServerMessage, text);
  if (checked.ok) return { kind: 'control', message: checked.value };
  return { kind: 'invalid', reason: checked.json ? `invalid control message: ${checked.error}` : `control message is not JSON: ${preview(text)}` };
}

function parseOutput(bytes: Uint8Array): IncomingPanelMessage {
  try {
    return { kind: 'output', frame: decodeOutputFrame(bytes) };
  } catch (error) {
    return { kind: 'invalid', reason: `invalid output frame: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/**
 * A client message as it goes on the wire. Keystrokes go unchecked: a client
 * makes them (an id and a chunk under the size limit) on every key, and the
 * server checks every frame anyway. The rest carry sizes, cursors and names
 * the client worked out, and are checked before they leave: a bad one throws
 * where its cause is, instead of coming back as an error reply nobody can trace.
 */
export function encodeClientMessage(message: PanelClientMessage): string {
  return JSON.stringify(message.type === 'input' ? message : PanelClientMessage.parse(message));
}
