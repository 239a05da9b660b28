// Checks each message the server sends against the contract, so nothing malformed reaches the panel's state.
import { decodeOutputFrame, PanelServerMessage, parseJsonAs, type OutputFrame } from '@ptydeck/contract';

export type IncomingMessage =
  | { kind: 'control'; message: PanelServerMessage }
  | { kind: 'output'; frame: OutputFrame }
  | { kind: 'invalid'; reason: string };

/**
 * Turns one WebSocket message into a validated value. Text frames are JSON
 * control messages checked against the contract; binary frames are output.
 * Nothing the server sends is trusted unchecked, and nothing malformed throws:
 * it comes back as `invalid` with a reason the caller can report.
 */
export function parseServerMessage(data: unknown): IncomingMessage {
  if (typeof data === 'string') return parseControl(data);
  if (data instanceof ArrayBuffer) return parseOutput(new Uint8Array(data));
  if (ArrayBuffer.isView(data)) return parseOutput(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return { kind: 'invalid', reason: `unexpected message type ${Object.prototype.toString.call(data)}` };
}

function parseControl(text: string): IncomingMessage {
  const checked = parseJsonAs(PanelServerMessage, text);
  if (checked.ok) return { kind: 'control', message: checked.value };
  return { kind: 'invalid', reason: checked.json ? `invalid control message: ${checked.error}` : `control message is not JSON: ${preview(text)}` };
}

function parseOutput(bytes: Uint8Array): IncomingMessage {
  try {
    return { kind: 'output', frame: decodeOutputFrame(bytes) };
  } catch (error) {
    return { kind: 'invalid', reason: `invalid output frame: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
