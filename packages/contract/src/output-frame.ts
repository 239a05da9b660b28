// The binary frame that carries session output on the panel socket, so bytes reach xterm.js untouched.
import { SESSION_ID_MAX, SESSION_ID_MIN } from './session-limits.js';

/**
 * Binary output frame: [u16 BE header length][header JSON, UTF-8][payload bytes].
 * The header names the session and the absolute byte cursor of the payload's first byte.
 * No schema: a session id (SessionId's length) and a non-negative safe integer,
 * checked by hand (readHeader), in every frame, and a client that reads only
 * output (`ptydeck attach`) then loads no zod (bench figure 12).
 */
export interface OutputFrameHeader {
  id: string;
  cursor: number;
}

export interface OutputFrame extends OutputFrameHeader {
  data: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Room before a payload that always holds a frame's head (the length prefix
 * and the header): a SessionId of up to 128 characters, each at most 6 bytes
 * JSON-escaped, and a cursor of up to 16 digits.
 */
export const OUTPUT_FRAME_HEAD_ROOM = 1024;

/** Scratch for a header's JSON: a sender writes one per frame, and this allocates nothing per frame. */
const headScratch = new Uint8Array(OUTPUT_FRAME_HEAD_ROOM);

export function encodeOutputFrame(header: OutputFrameHeader, data: Uint8Array): Uint8Array {
  const json = encodeHeader(header);
  const frame = new Uint8Array(2 + json.length + data.length);
  putHead(frame, 0, json);
  frame.set(data, 2 + json.length);
  return frame;
}

/**
 * Writes a frame's head into `frame` so that it ends at `payloadStart`, where
 * the sender has put (or will put) the payload; returns the frame's first
 * byte. A sender that keeps OUTPUT_FRAME_HEAD_ROOM free before its payloads
 * sends each frame as one message, without copying the payload again.
 */
export function writeOutputFrameHead(header: OutputFrameHeader, frame: Uint8Array, payloadStart: number): number {
  const json = encodeHeader(header);
  const start = payloadStart - 2 - json.length;
  if (start < 0) throw new RangeError(`no room for the output frame header: ${json.length + 2} bytes before ${payloadStart}`);
  putHead(frame, start, json);
  return start;
}

/** The length prefix and the header's JSON, at `start`. */
function putHead(frame: Uint8Array, start: number, json: Uint8Array): void {
  frame[start] = json.length >>> 8;
  frame[start + 1] = json.length & 0xff;
  frame.set(json, start + 2);
}

/** The header's JSON, in the scratch array (valid until the next call). */
function encodeHeader(header: OutputFrameHeader): Uint8Array {
  const text = JSON.stringify(header);
  const { read, written } = encoder.encodeInto(text, headScratch);
  if (read !== text.length) throw new RangeError('output frame header too large');
  return headScratch.subarray(0, written);
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
  return { ...readHeader(json), data: frame.subarray(2 + headLength) };
}

/** The header, checked as SessionId and a cursor's schema would check it (output-frame.test.ts holds them together). */
function readHeader(json: unknown): OutputFrameHeader {
  if (typeof json !== 'object' || json === null) throw new Error('output frame header is not an object');
  const { id, cursor } = json as Record<string, unknown>;
  if (typeof id !== 'string' || id.length < SESSION_ID_MIN || id.length > SESSION_ID_MAX) throw new Error(`output frame header's id is not a session id`);
  if (typeof cursor !== 'number' || !Number.isSafeInteger(cursor) || cursor < 0) throw new Error(`output frame header's cursor is not a non-negative integer`);
  return { id, cursor };
}
