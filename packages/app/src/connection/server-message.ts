// Checks each message the server sends against the contract, so nothing malformed reaches the panel's state.
import { decodeOutputFrame, formatZodIssues, PanelServerMessage, type OutputFrame } from '@ptydeck/contract';

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
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: `control message is not JSON: ${preview(text)}` };
  }
  const result = PanelServerMessage.safeParse(json);
  if (!result.success) {
    return { kind: 'invalid', reason: `invalid control message: ${formatZodIssues(result.error)}` };
  }
  return { kind: 'control', message: result.data };
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
