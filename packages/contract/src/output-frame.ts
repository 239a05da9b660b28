import { z } from 'zod';
import { SessionId } from './session.js';

/**
 * Binary output frame: [u16 BE header length][header JSON, UTF-8][payload bytes].
 * The header names the session and the absolute byte cursor of the payload's first byte.
 */
export const OutputFrameHeader = z.object({
  id: SessionId,
  cursor: z.number().int().min(0),
});
export type OutputFrameHeader = z.infer<typeof OutputFrameHeader>;

export interface OutputFrame extends OutputFrameHeader {
  data: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeOutputFrame(header: OutputFrameHeader, data: Uint8Array): Uint8Array {
  const head = encodeOutputFrameHead(header);
  const frame = new Uint8Array(head.length + data.length);
  frame.set(head, 0);
  frame.set(data, head.length);
  return frame;
}

/**
 * A frame's bytes before its payload: the length prefix and the header. A
 * sender can write these and the payload as they are, without copying the
 * payload into one buffer (a WebSocket message may go in fragments).
 */
export function encodeOutputFrameHead(header: OutputFrameHeader): Uint8Array {
  const json = encoder.encode(JSON.stringify(header));
  if (json.length > 0xffff) throw new RangeError('output frame header too large');
  const head = new Uint8Array(2 + json.length);
  head[0] = json.length >>> 8;
  head[1] = json.length & 0xff;
  head.set(json, 2);
  return head;
}

/** Decodes and validates a frame; throws a descriptive Error when it is malformed. */
export function decodeOutputFrame(frame: Uint8Array): OutputFrame {
  if (frame.length < 2) throw new Error('output frame shorter than its length prefix');
  const headLength = (frame[0]! << 8) | frame[1]!;
  if (frame.length < 2 + headLength) throw new Error('output frame shorter than its header');
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(frame.subarray(2, 2 + headLength)));
  } catch {
    throw new Error('output frame header is not JSON');
  }
  const header = OutputFrameHeader.parse(json);
  return { ...header, data: frame.subarray(2 + headLength) };
}
